"""What scripts pass to ``models.classify()`` and ``models.generateImages()``, checked before a
request is made, so a wrong shape fails with a line naming the problem and the expected shape
instead of a provider's error (Pi 1.6 checks the same things; the wording is ours)."""

from __future__ import annotations

from typing import Any

from pi_coding_agent.core.codemode._sandbox import CallRejected

CLASSIFIER_SHAPE = (
    '{ state: {...}, images?: [{ type: "image", data, mimeType }], questions: { <id>: '
    '{ type: "choice", instructions, criteria: { <label>: <meaning> } } | '
    '{ type: "score", instructions, criteria: [<lowest>, ..., <highest>] } | '
    '{ type: "bool", instructions, criteria: { true: <meaning>, false: <meaning> } } } }'
)
IMAGES_SHAPE = (
    '{ input: [{ type: "text", text }, ...and optional { type: "image", data, mimeType } references] }'
)
DOCS = "docs/codemode.md"


def describe_value(value: Any) -> str:
    """A script value in an error message, without its contents."""
    if value is None:
        return "undefined"
    if isinstance(value, list):
        return "an empty array" if not value else "an array"
    if isinstance(value, dict):
        keys = list(value)
        return "{}" if not keys else "{ " + ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "") + " }"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _is_image(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and block.get("type") == "image"
        and isinstance(block.get("data"), str)
        and isinstance(block.get("mimeType"), str)
    )


def _strings(values: Any) -> bool:
    return bool(values) and all(isinstance(value, str) for value in values)


def _question_problem(at: str, question: Any) -> str | None:
    if not isinstance(question, dict):
        return f"{at} has to be a question object, not {describe_value(question)}"
    kind, criteria = question.get("type"), question.get("criteria")
    if not isinstance(question.get("instructions"), str):
        return f"{at}.instructions has to be a string"
    if kind == "choice":
        if not isinstance(criteria, dict) or not _strings(list(criteria.values())):
            return f"{at} is a choice, so its criteria map each label to what it means (strings)"
    elif kind == "score":
        if not isinstance(criteria, list) or not _strings(criteria):
            return f"{at} is a score, so its criteria list the levels as strings, lowest first"
    elif kind == "bool":
        if (
            not isinstance(criteria, dict)
            or not isinstance(criteria.get("true"), str)
            or not isinstance(criteria.get("false"), str)
        ):
            return f"{at} is a bool, so its criteria are {{ true: string, false: string }}"
    else:
        shown = "undefined" if kind is None else repr(kind).replace("'", '"')
        return f'{at}.type is {shown}; a question is "choice", "score" or "bool"'
    return None


def _classifier_problem(context: Any) -> str | None:
    if not isinstance(context, dict):
        return f"takes a context object second, not {describe_value(context)}"
    if not isinstance(context.get("state"), dict):
        return f"needs context.state as an object, not {describe_value(context.get('state'))}"
    images = context.get("images")
    if images is not None:
        if not isinstance(images, list):
            return f"needs context.images as an array, not {describe_value(images)}"
        bad = next((index for index, image in enumerate(images) if not _is_image(image)), None)
        if bad is not None:
            return f"needs context.images[{bad}] as an image block, not {describe_value(images[bad])}"
    questions = context.get("questions")
    if not isinstance(questions, dict) or not questions:
        return f"needs context.questions mapping question ids to questions, not {describe_value(questions)}"
    for qid, question in questions.items():
        problem = _question_problem(f"context.questions.{qid}", question)
        if problem is not None:
            return problem
    return None


def check_classifier_context(context: Any) -> dict[str, Any]:
    """``context`` when it is a classifier context; else ``CallRejected`` saying what is wrong."""
    problem = _classifier_problem(context)
    if problem is not None:
        raise CallRejected(
            f"models.classify() {problem}. The context looks like {CLASSIFIER_SHAPE} ({DOCS}, Classify)."
        )
    return dict(context)


def check_images_context(context: Any) -> dict[str, Any]:
    """``context`` when it is an image-generation context; else ``CallRejected``."""
    problem: str | None = None
    if not isinstance(context, dict):
        problem = f"takes a context object second, not {describe_value(context)}"
    elif not isinstance(context.get("input"), list) or not context["input"]:
        problem = (
            f"needs context.input as a non-empty array of blocks, not {describe_value(context.get('input'))}"
        )
    else:
        for index, block in enumerate(context["input"]):
            text = (
                isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
            )
            if not (text or _is_image(block)):
                problem = (
                    f"needs context.input[{index}] as a text or image block, not {describe_value(block)}"
                )
                break
    if problem is not None:
        raise CallRejected(
            f"models.generateImages() {problem}. The context looks like {IMAGES_SHAPE} ({DOCS}, Generate images)."
        )
    return dict(context)
