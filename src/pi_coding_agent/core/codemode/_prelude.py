"""JavaScript that runs in the VM before a script: the script's globals on top of one host function.

The prelude is evaluated to a function ``(toolsJson, globalsJson, storeJson)`` that returns one
function ``(request, ...)`` for ``settle``, ``run``, ``stalled`` and ``take``. The VM never calls
the host (the binding refuses calls into Python while a CPU-time limit is set): it queues its
requests in a closure the script cannot reach, and ``take`` hands them over as a JSON list of:

* ``host("call", id, name, argsJson)`` - call a tool; ``host("global", id, name, argsJson)`` - call
  a host global (``searchTools`` ...; its arguments as a JSON array);
* ``host("output", kind, data, mimeType)`` - ``kind`` is ``text``, ``console`` or ``image``;
* ``host("done", ok, payload, writesJson)`` - the script ended: the returned value as JSON (or the
  error as ``{name, message, stack}`` JSON) and the ``store()`` writes (``[[key, json] | [key]]``).

``settle(id, ok, payload)`` answers a call: the result as JSON, or the error text to reject with.
``stalled()`` fails a script that waits while no call is pending (there are no timers, so nothing
could ever wake it). The prelude takes its own references to ``JSON``, ``Promise`` and ``Error``
before the script runs, so a script that patches them cannot change what the host receives.

The prelude is preceded by ``PRELUDE_LINE_OFFSET`` blank lines: the binding names every source
``<input>``, so stack frames at or past that line are the prelude's and are dropped from error
texts, and the script's frames are named ``codemode.js``.
"""

from __future__ import annotations

MAX_STORE_VALUE_CHARS = 256 * 1024
MAX_STORE_TOTAL_CHARS = 1024 * 1024
MAX_OUTPUT_CHARS = 16 * 1024 * 1024
MAX_OUTPUT_ITEMS = 100_000
PRELUDE_LINE_OFFSET = 100_000

_IMAGE_SHAPES = 'image() takes a base64 data: URL, an object with image_url, or an image block { type: "image", data, mimeType }'

_BODY = r"""
(function (toolsJson, globalsJson, storeJson) {
  "use strict";
  // Requests wait here until the host takes them (the binding cannot call into Python while a
  // CPU-time limit is set, so the VM never calls the host: the host asks).
  const outbox = [];
  const host = (...message) => { outbox.push(message); };
  const toJson = JSON.stringify, fromJson = JSON.parse;
  const thenOf = Promise.prototype.then;
  const BaseError = Error, BadType = TypeError, BadRange = RangeError;
  const LINE_OFFSET = __LINE_OFFSET__;
  const calls = new Map();
  let lastId = 0;
  let over = false;
  const EXITING = Object.freeze({});

  function finish(ok, payload, writes) {
    if (over) return;
    over = true;
    host("done", ok, payload, writes);
  }

  // "Name: message" then the script's own frames, renamed to codemode.js.
  function stackText(error) {
    const head = error.message ? error.name + ": " + error.message : String(error.name);
    const frames = [];
    if (typeof error.stack === "string") {
      for (const line of error.stack.split("\n")) {
        if (!line.trim()) continue;
        const where = /<input>:(\d+)(?::\d+)?\)?$/.exec(line);
        if (where && Number(where[1]) >= LINE_OFFSET) continue;
        frames.push(line.split("<input>").join("codemode.js"));
      }
    }
    return [head].concat(frames).join("\n");
  }

  function show(value) {
    if (typeof value === "string") return value;
    if (value instanceof BaseError) return stackText(value);
    if (typeof value === "number") return String(value);
    try {
      const json = toJson(value);
      return json === undefined ? String(value) : json;
    } catch (error) {
      return String(value);
    }
  }

  function errorJson(error) {
    try {
      if (error instanceof BaseError) {
        return toJson({ name: String(error.name), message: String(error.message), stack: stackText(error) });
      }
      return toJson({ message: String(show(error)) });
    } catch (ignored) {
      return toJson({ message: "The script threw something that cannot be turned into text" });
    }
  }

  function requester(kind, name, spread) {
    return function (...args) {
      return new Promise((resolve, reject) => {
        let json;
        try {
          const value = spread ? args : args[0];
          json = value === undefined ? undefined : toJson(value);
        } catch (error) {
          reject(error);
          return;
        }
        const id = ++lastId;
        calls.set(id, { resolve, reject });
        host(kind, id, name, json);
      });
    };
  }

  const toolTable = Object.create(null);
  const listing = [];
  for (const tool of fromJson(toolsJson)) {
    const call = requester("call", tool.name, false);
    if (!(tool.jsName in toolTable)) {
      toolTable[tool.jsName] = call;
      listing.push(Object.freeze({ name: tool.jsName, description: tool.description }));
    }
    if (!(tool.name in toolTable)) toolTable[tool.name] = call;
  }
  Object.freeze(toolTable);
  Object.freeze(listing);

  const squash = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, "");
  // Reading a member that is not there fails at once, naming what is there instead of a later
  // "not a function". `in` tests are unaffected.
  function strict(target, label, names, hint) {
    return new Proxy(target, {
      get(object, key, receiver) {
        if (typeof key !== "string" || key in object || key in Object.prototype || key === "then" || key === "toJSON") {
          return Reflect.get(object, key, receiver);
        }
        const wanted = squash(key);
        const same = names.filter((name) => squash(name) === wanted);
        const near = same.length > 0 ? same : names.filter((name) => wanted && (squash(name).includes(wanted) || wanted.includes(squash(name))));
        let text = label + "." + key + " is not defined.";
        if (near.length > 0) text += " Close matches: " + near.slice(0, 5).map((name) => label + "." + name).join(", ") + ".";
        else if (names.length <= 20) text += " Defined: " + names.join(", ") + ".";
        if (hint) text += " " + hint;
        throw new BadType(text);
      },
    });
  }
  const tools = strict(toolTable, "tools", listing.map((tool) => tool.name),
    "ALL_TOOLS has every tool, and searchTools(query) ranks them for a topic.");

  const groups = new Map();
  for (const entry of fromJson(globalsJson)) {
    const call = requester("global", entry.name, entry.spread);
    const dot = entry.name.indexOf(".");
    if (dot < 0) {
      Object.defineProperty(globalThis, entry.name, { value: call, enumerable: true });
      continue;
    }
    const group = entry.name.slice(0, dot);
    if (!groups.has(group)) groups.set(group, Object.create(null));
    groups.get(group)[entry.name.slice(dot + 1)] = call;
  }
  for (const [group, members] of groups) {
    Object.freeze(members);
    Object.defineProperty(globalThis, group, { value: strict(members, group, Object.keys(members)), enumerable: true });
  }

  const kept = new Map(Object.entries(fromJson(storeJson)));
  const changed = new Map();
  let keptChars = 0;
  for (const [key, json] of kept) keptChars += key.length + json.length;
  const STORE_ADVICE = "Keep only small state (IDs, cursors, summaries) in store(); hold big data in variables, show images with image(), or write files with a tool.";

  function keyOf(fn, key) {
    if (typeof key !== "string") throw new BadType(fn + "() needs a string key");
  }

  function store(key, value) {
    keyOf("store", key);
    const before = kept.has(key) ? key.length + kept.get(key).length : 0;
    if (value === undefined) {
      kept.delete(key);
      keptChars -= before;
      changed.set(key, undefined);
      return;
    }
    let json;
    try {
      json = toJson(value);
    } catch (error) {
      throw new BadType("store(" + toJson(key) + ") cannot keep this value as JSON: " + show(error));
    }
    if (json === undefined) throw new BadType("store(" + toJson(key) + ") cannot keep this value as JSON");
    if (json.length > __MAX_VALUE__) {
      throw new BadRange("store(" + toJson(key) + ") got " + json.length + " characters of JSON; one value may have at most __MAX_VALUE__. " + STORE_ADVICE);
    }
    const after = keptChars - before + key.length + json.length;
    if (after > __MAX_TOTAL__) {
      throw new BadRange("store() is full: all values together may have at most __MAX_TOTAL__ characters of JSON; remove keys with store(key, undefined). " + STORE_ADVICE);
    }
    kept.set(key, json);
    keptChars = after;
    changed.set(key, json);
  }

  function load(key) {
    keyOf("load", key);
    const json = kept.get(key);
    return json === undefined ? undefined : fromJson(json);
  }

  function writesJson() {
    const list = [];
    for (const [key, json] of changed) list.push(json === undefined ? [key] : [key, json]);
    return toJson(list);
  }

  let producedChars = 0, producedItems = 0;
  function emit(kind, data, mimeType) {
    if (over) return;
    producedChars += data.length;
    producedItems += 1;
    if (producedChars > __MAX_CHARS__ || producedItems > __MAX_ITEMS__) {
      const error = new BadRange("The script produced more than __MAX_CHARS__ characters or __MAX_ITEMS__ text(), image() and console calls. Print a summary, or write large data to a file with a tool.");
      finish(false, errorJson(error));
      throw error;
    }
    host("output", kind, data, mimeType);
  }

  function asText(value) {
    if (value === undefined || value === null || (typeof value !== "object" && typeof value !== "function")) return String(value);
    const json = toJson(value);
    return json === undefined ? String(value) : json;
  }

  function text(value) {
    let rendered;
    try {
      rendered = asText(value);
    } catch (error) {
      throw new BadType(error instanceof BaseError ? error.message : String(error));
    }
    emit("text", rendered);
  }

  const IMAGE_SHAPES = __IMAGE_SHAPES__;
  // The three shapes image() takes, reduced to one URL string.
  function imageUrl(value) {
    if (typeof value === "string" && value !== "") return value;
    const isRecord = typeof value === "object" && value !== null && !Array.isArray(value);
    if (isRecord && "image_url" in value && value.image_url !== undefined) {
      if (typeof value.image_url === "string" && value.image_url !== "") return value.image_url;
      throw new BadType(IMAGE_SHAPES);
    }
    if (!isRecord || typeof value.type !== "string") throw new BadType(IMAGE_SHAPES);
    if (value.type !== "image") throw new BadType('image() takes image blocks only, not "' + value.type + '" blocks');
    const data = value.data;
    if (typeof data !== "string" || data === "") throw new BadType("image() got an image block without data");
    return /^data:/i.test(data) ? data : "data:;base64," + data;
  }

  // Formats by the base64 of their first bytes (a JPEG's fourth byte is never 0xF7..0xFF).
  const FORMATS = [
    [/^iVBORw0KGg/, "image/png"],
    [/^[/]9j[/](?!9)/, "image/jpeg"],
    [/^R0lGOD[dl]h/, "image/gif"],
    [/^UklG.{8}RUJQ/, "image/webp"],
  ];
  const DATA_URL = /^data:([^,]*),([\s\S]*)$/i;
  const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

  function image(value) {
    const url = imageUrl(value);
    if (/^https?:/i.test(url)) throw new BadType("image() cannot fetch remote URLs; pass the image as a base64 data: URL");
    const parts = DATA_URL.exec(url);
    const params = parts ? parts[1].split(";").slice(1).map((param) => param.toLowerCase()) : [];
    if (!parts || !params.includes("base64")) {
      throw new BadType("image() needs base64 data: a data:<type>;base64,<data> URL or an image block");
    }
    const data = parts[2].replace(/\s+/g, "");
    if (data.length % 4 !== 0 || !BASE64.test(data)) {
      throw new BadType("image() got data that is not valid base64 (cut short or damaged?)");
    }
    const head = data.slice(0, 16);
    const format = FORMATS.find(([pattern]) => pattern.test(head));
    if (format === undefined) throw new BadType("image() accepts PNG, JPEG, GIF and WebP images only");
    emit("image", data, format[1]);
  }

  function exit() {
    let writes;
    try {
      writes = writesJson();
    } catch (error) {
      finish(false, errorJson(error));
      throw EXITING;
    }
    finish(true, undefined, writes);
    throw EXITING;
  }

  const scriptConsole = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    scriptConsole[level] = (...args) => emit("console", args.map(show).join(" "));
  }
  Object.freeze(scriptConsole);

  const define = (name, value) => Object.defineProperty(globalThis, name, { value, enumerable: true });
  define("tools", tools);
  define("ALL_TOOLS", listing);
  define("console", scriptConsole);
  define("text", text);
  define("image", image);
  define("exit", exit);
  define("store", store);
  define("load", load);

  const api = {
    settle(id, ok, payload) {
      const waiter = calls.get(id);
      if (!waiter) return;
      calls.delete(id);
      if (!ok) {
        waiter.reject(new BaseError(payload));
        return;
      }
      let value;
      try {
        value = payload === undefined || payload === null ? undefined : fromJson(payload);
      } catch (error) {
        waiter.reject(error);
        return;
      }
      waiter.resolve(value);
    },
    run(body) {
      let pending;
      try {
        pending = body(tools, scriptConsole);
      } catch (error) {
        if (error !== EXITING) finish(false, errorJson(error));
        return;
      }
      thenOf.call(pending, (value) => {
        let json;
        try {
          json = value === undefined ? undefined : toJson(value);
        } catch (error) {
          finish(false, errorJson(error));
          return;
        }
        finish(true, json, writesJson());
      }, (error) => {
        if (error !== EXITING) finish(false, errorJson(error));
      });
    },
    stalled() {
      if (over || calls.size > 0) return false;
      finish(false, toJson({ name: "Error", message: "The script awaits a promise that nothing can settle: no tool call is pending, and there are no timers." }));
      return true;
    },
  };
  // The binding hands the host functions, not objects: one function answers every request.
  return function (request, a, b, c) {
    if (request === "settle") return api.settle(a, b, c);
    if (request === "run") return api.run(a);
    if (request === "take") return toJson(outbox.splice(0, outbox.length));
    return api.stalled();
  };
})
"""


def prelude_source() -> str:
    """The prelude, with its limits filled in, led by the blank lines that mark its frames."""
    import json

    body = (
        _BODY.replace("__LINE_OFFSET__", str(PRELUDE_LINE_OFFSET))
        .replace("__MAX_VALUE__", str(MAX_STORE_VALUE_CHARS))
        .replace("__MAX_TOTAL__", str(MAX_STORE_TOTAL_CHARS))
        .replace("__MAX_CHARS__", str(MAX_OUTPUT_CHARS))
        .replace("__MAX_ITEMS__", str(MAX_OUTPUT_ITEMS))
        .replace("__IMAGE_SHAPES__", json.dumps(_IMAGE_SHAPES))
    )
    return "\n" * (PRELUDE_LINE_OFFSET - 1) + body.lstrip("\n")
