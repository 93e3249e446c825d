"""Tools from plain coroutine functions: the schema comes from the signature.

    @function_tool(label="Weather")
    async def get_weather(city: str, units: Literal["c", "f"] = "c") -> str:
        \"\"\"Current weather for a city.\"\"\"
        ...

The function's parameters become the JSON Schema (derived with pydantic, which must be
installed for this), its docstring the description. Three parameter names are reserved and
filled by the loop instead of the model: ``tool_call_id``, ``signal`` and ``on_update``.
A function taking one pydantic model receives the validated model instead. It may return a
string, a list of text/image blocks, an ``AgentToolResult`` or ``None``; raising reports an
error to the model, as with any tool.

The loop still validates and coerces the model's arguments with Pi's rules first, so the
error text the model sees is the same as for any other tool; pydantic then builds the
Python values (``Literal``, ``datetime``, nested models, ...).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, get_type_hints, overload

from pi_agent._tools import AgentTool, AgentToolResult, ToolExecutionMode, ToolUpdateCallback
from pi_ai import AbortSignal, ImageContent, TextContent

ToolFunction = Callable[..., Awaitable[Any]]
_INJECTED = frozenset({"tool_call_id", "signal", "on_update"})


def _pydantic() -> Any:
    try:
        import pydantic
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "function_tool derives schemas with pydantic; install pydantic or pass parameters= explicitly"
        ) from error
    return pydantic


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's ``title`` keywords (property maps keep a property named "title")."""
    if isinstance(schema, list):
        return [_strip_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
            out[key] = {name: _strip_titles(sub) for name, sub in value.items()}
        else:
            out[key] = _strip_titles(value)
    return out


def _to_result(value: Any) -> AgentToolResult[Any]:
    if isinstance(value, AgentToolResult):
        return value
    if value is None:
        return AgentToolResult()
    if isinstance(value, str):
        return AgentToolResult(content=[TextContent(text=value)])
    if isinstance(value, Sequence) and all(isinstance(block, TextContent | ImageContent) for block in value):
        return AgentToolResult(content=list(value))
    raise TypeError(
        f"a function tool must return str, a list of text/image blocks, AgentToolResult or None, "
        f"not {type(value).__name__}"
    )


class FunctionTool(AgentTool):
    """An ``AgentTool`` around a coroutine function (see ``function_tool``)."""

    def __init__(
        self,
        fn: ToolFunction,
        *,
        name: str | None = None,
        label: str | None = None,
        description: str | None = None,
        parameters: dict[str, Any] | type[Any] | None = None,
        execution_mode: ToolExecutionMode | None = None,
        prepare_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        """``parameters``: a JSON Schema (the function then receives the validated arguments as
        keyword arguments), a pydantic model class (it receives one model instance), or
        ``None`` to derive the schema from the signature."""
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"{getattr(fn, '__qualname__', fn)!r} must be an async function")
        self.fn = fn
        self.name = name or fn.__name__
        self.label = label or self.name
        self.description = description if description is not None else inspect.cleandoc(fn.__doc__ or "")
        self.execution_mode = execution_mode
        self._prepare = prepare_arguments
        signature = inspect.signature(fn)
        self._injected = [param for param in signature.parameters if param in _INJECTED]
        self._model: Any = None
        self._single_model_param: str | None = None
        if isinstance(parameters, dict):
            self.parameters = parameters
        elif parameters is not None:
            self.parameters = self._model_schema(parameters, signature)
        else:
            self.parameters = self._derive_schema(fn, signature)

    def _model_schema(self, model: type[Any], signature: inspect.Signature) -> dict[str, Any]:
        if not hasattr(model, "model_json_schema"):
            raise TypeError(f"{self.name}: parameters must be a JSON Schema dict or a pydantic model class")
        params = [p for p in signature.parameters.values() if p.name not in _INJECTED]
        if len(params) != 1:
            raise TypeError(
                f"{self.name}: with a parameters model the function takes exactly one argument for it"
            )
        self._model = model
        self._single_model_param = params[0].name
        schema: dict[str, Any] = _strip_titles(model.model_json_schema())
        return schema

    def _derive_schema(self, fn: ToolFunction, signature: inspect.Signature) -> dict[str, Any]:
        pydantic = _pydantic()
        hints = get_type_hints(fn, include_extras=True)
        params = [p for p in signature.parameters.values() if p.name not in _INJECTED]
        if len(params) == 1:
            annotation: Any = hints.get(params[0].name)
            if inspect.isclass(annotation) and issubclass(annotation, pydantic.BaseModel):
                return self._model_schema(annotation, signature)
        fields: dict[str, Any] = {}
        for param in params:
            if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                raise TypeError(f"{self.name}: *args/**kwargs cannot become tool parameters")
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[param.name] = (hints.get(param.name, Any), default)
        self._model = pydantic.create_model(f"{self.name}_arguments", **fields)
        derived: dict[str, Any] = _strip_titles(self._model.model_json_schema())
        return derived

    def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return self._prepare(arguments) if self._prepare is not None else arguments

    async def execute(
        self,
        tool_call_id: str,
        params: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult[Any]:
        injected = {"tool_call_id": tool_call_id, "signal": signal, "on_update": on_update}
        kwargs = {name: injected[name] for name in self._injected}
        if self._model is None:
            kwargs.update(params)
        elif self._single_model_param is not None:
            kwargs[self._single_model_param] = self._model.model_validate(params)
        else:
            validated = self._model.model_validate(params)
            kwargs.update({field: getattr(validated, field) for field in type(validated).model_fields})
        return _to_result(await self.fn(**kwargs))


@overload
def function_tool(fn: ToolFunction, /) -> FunctionTool: ...
@overload
def function_tool(
    *,
    name: str | None = None,
    label: str | None = None,
    description: str | None = None,
    execution_mode: ToolExecutionMode | None = None,
) -> Callable[[ToolFunction], FunctionTool]: ...
def function_tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    label: str | None = None,
    description: str | None = None,
    execution_mode: ToolExecutionMode | None = None,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """Decorator: turn an async function into a ``FunctionTool`` (with or without arguments)."""

    def build(function: ToolFunction) -> FunctionTool:
        return FunctionTool(
            function, name=name, label=label, description=description, execution_mode=execution_mode
        )

    return build(fn) if fn is not None else build
