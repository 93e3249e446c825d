"""The page's code colouring: a small tokenizer of ours, run on a block when it is drawn.

Python writes code as escaped text with ``data-lang``; ``PiSyntax.colour(root)`` finds those
blocks, cuts their text into comments, strings, numbers, keywords, types, function names,
variables, operators and punctuation (the theme's ``syntax*`` tokens, as the ``sx-*`` classes),
and wraps each piece in a ``<span>`` made with ``createElement`` and ``textContent``: session
text stays text, never markup. A block keeps its own elements (a folded tail stays folded): the
text nodes are split in place. Languages it does not know stay in the block's plain colour.

One regular expression per language family, tried left to right: far cheaper than a full lexer,
and exact enough for colouring (a construct it misreads is coloured wrongly, never lost).
"""

HIGHLIGHT_SCRIPT = r"""
var PiSyntax = (function () {
  "use strict";
  function words(text) {
    var set = Object.create(null);
    text.split(" ").forEach(function (word) { set[word] = true; });
    return set;
  }
  var SLASH = "\\/\\/[^\\n]*", BLOCK = "\\/\\*[\\s\\S]*?(?:\\*\\/|(?![\\s\\S]))", HASH = "#[^\\n]*", DASHES = "--[^\\n]*";
  var DQ = '"(?:\\\\[\\s\\S]|[^"\\\\\\n])*"?', SQ = "'(?:\\\\[\\s\\S]|[^'\\\\\\n])*'?";
  var BT = "`(?:\\\\[\\s\\S]|[^`\\\\])*`?", CHAR = "'(?:\\\\.|[^'\\\\\\n])'";
  var TRIPLE = "\"{3}[\\s\\S]*?(?:\"{3}|(?![\\s\\S]))|'{3}[\\s\\S]*?(?:'{3}|(?![\\s\\S]))";
  var CLIKE = "auto break case catch char class const constexpr continue default delete do double else enum " +
    "explicit extern final float for friend goto if inline int long namespace new noexcept nullptr operator " +
    "override private protected public register return short signed sizeof static struct switch template this " +
    "throw throws try typedef typename union unsigned using virtual void volatile while abstract boolean byte " +
    "extends implements import instanceof interface native package super synchronized transient var val fun " +
    "when is in out object let func guard defer protocol extension self nil null true false async await";
  var SCRIPT_WORDS = "break case catch class const continue debugger default delete do else export extends " +
    "finally for from function if import in instanceof let new of return static super switch this throw try " +
    "typeof var void while with yield async await true false null undefined interface type enum implements " +
    "private protected public readonly declare namespace abstract as keyof satisfies";
  var FAMILIES = {
    python: {comments: [HASH], strings: [TRIPLE, DQ, SQ], special: "@[\\w.]+", specialClass: "sx-function",
      keywords: words("False None True and as assert async await break class continue def del elif else " +
        "except finally for from global if import in is lambda nonlocal not or pass raise return try while " +
        "with yield match case self cls"),
      types: words("int float str bool list dict set tuple bytes object type len range print open isinstance " +
        "super Exception ValueError TypeError KeyError")},
    script: {comments: [SLASH, BLOCK], strings: [DQ, SQ, BT], keywords: words(SCRIPT_WORDS), caps: true,
      types: words("string number boolean any unknown never object bigint symbol Array Promise Map Set Record")},
    json: {comments: [SLASH, BLOCK], strings: [DQ], keywords: words("true false null")},
    shell: {comments: [HASH], strings: [DQ, SQ], special: "\\$\\{[^}\\n]*\\}?|\\$(?:\\w+|[@#?*!$-])", specialClass: "sx-variable",
      keywords: words("if then else elif fi for while until do done case esac function in return local export " +
        "declare readonly unset shift exit break continue set select time"),
      types: words("echo cd pwd source alias printf read test eval exec trap wait kill true false")},
    rust: {comments: [SLASH, BLOCK], strings: [DQ, CHAR], caps: true,
      keywords: words("as async await break const continue crate dyn else enum extern false fn for if impl in " +
        "let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use " +
        "where while"),
      types: words("i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str")},
    go: {comments: [SLASH, BLOCK], strings: [DQ, BT, CHAR],
      keywords: words("break case chan const continue default defer else fallthrough for func go goto if " +
        "import interface map package range return select struct switch type var true false nil iota"),
      types: words("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune " +
        "string uint uint8 uint16 uint32 uint64 uintptr any")},
    clike: {comments: [SLASH, BLOCK, "#\\s*\\w+"], strings: [DQ, CHAR], keywords: words(CLIKE), caps: true,
      special: "\\$\\w+", specialClass: "sx-variable",
      types: words("bool string int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t " +
        "String Integer Object")},
    ruby: {comments: [HASH], strings: [DQ, SQ], special: "@{1,2}\\w+|:\\w+", specialClass: "sx-variable", caps: true,
      keywords: words("alias and begin break case class def do else elsif end ensure false for if in module " +
        "next nil not or redo rescue retry return self super then true undef unless until when while yield"),
      types: words("puts require require_relative attr_accessor attr_reader attr_writer include extend raise")},
    lua: {comments: ["--\\[\\[[\\s\\S]*?(?:\\]\\]|(?![\\s\\S]))", DASHES], strings: [DQ, SQ],
      keywords: words("and break do else elseif end false for function goto if in local nil not or repeat " +
        "return then true until while")},
    sql: {comments: [DASHES, BLOCK], strings: [SQ, DQ], lower: true,
      keywords: words("select from where insert into values update set delete create table drop alter index " +
        "join left right inner outer full cross on and or not null is in as order by group having limit offset " +
        "distinct union all primary key foreign references default case when then else end exists like between " +
        "begin commit rollback with returning view trigger if asc desc"),
      types: words("integer int text varchar char boolean date timestamp real float double numeric serial blob")},
    config: {comments: [HASH], strings: [DQ, SQ], special: "^[ \\t-]*[\\w.\"'-]+(?=[ \\t]*[:=])|^\\s*\\[[^\\]\\n]*\\]",
      specialClass: "sx-keyword", keywords: words("true false null yes no on off")},
    markup: {comments: ["<!--[\\s\\S]*?(?:-->|(?![\\s\\S]))"], strings: [DQ], special: "<\\/?[A-Za-z][\\w:.-]*|\\/?>",
      specialClass: "sx-keyword", plainWords: true},
    css: {comments: [BLOCK], strings: [DQ, SQ], special: "#[\\da-fA-F]{3,8}\\b|@[\\w-]+", specialClass: "sx-number",
      ident: "[A-Za-z_-][\\w-]*", keywords: words("important inherit initial unset none auto")}
  };
  var LANGUAGES = {
    python: "python", py: "python", python3: "python", py3: "python",
    javascript: "script", js: "script", mjs: "script", cjs: "script", jsx: "script", node: "script",
    typescript: "script", ts: "script", tsx: "script", mts: "script",
    json: "json", jsonc: "json", json5: "json", jsonl: "json",
    bash: "shell", sh: "shell", shell: "shell", zsh: "shell", console: "shell", shellsession: "shell",
    rust: "rust", rs: "rust", go: "go", golang: "go",
    c: "clike", h: "clike", cpp: "clike", "c++": "clike", cc: "clike", cxx: "clike", hpp: "clike",
    java: "clike", kotlin: "clike", kt: "clike", csharp: "clike", cs: "clike", "c#": "clike",
    swift: "clike", php: "clike", scala: "clike", dart: "clike",
    ruby: "ruby", rb: "ruby", lua: "lua", sql: "sql", postgresql: "sql", mysql: "sql", sqlite: "sql",
    toml: "config", yaml: "config", yml: "config", ini: "config", dockerfile: "config",
    html: "markup", xml: "markup", svg: "markup", vue: "markup",
    css: "css", scss: "css", less: "css"
  };
  var NUMBER = "\\b(?:0[xXbBoO][\\da-fA-F_]+|\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\w*";
  var compiled = {};

  function pattern(family) {
    if (compiled[family]) { return compiled[family]; }
    var spec = FAMILIES[family];
    var source = "(" + spec.comments.join("|") + ")|(" + spec.strings.join("|") + ")|(" +
      (spec.special || "(?!)") + ")|(" + NUMBER + ")|(" + (spec.ident || "[A-Za-z_$][\\w$]*") +
      ")|([-+*/%=<>!&|^~?:]+)|([()[\\]{},;.])";
    compiled[family] = new RegExp(source, "gm");
    return compiled[family];
  }

  function wordClass(spec, word, text, end) {
    var key = spec.lower ? word.toLowerCase() : word;
    if (spec.keywords && spec.keywords[key]) { return "sx-keyword"; }
    if (spec.types && spec.types[key]) { return "sx-type"; }
    if (spec.plainWords) { return null; }
    var next = end;
    while (text.charAt(next) === " ") { next++; }
    if (text.charAt(next) === "(") { return "sx-function"; }
    return spec.caps && /^[A-Z][a-z]/.test(word) ? "sx-type" : null;
  }

  /* [start, end, class] of each coloured piece of text, in order. */
  function tokens(text, family) {
    var spec = FAMILIES[family], regex = pattern(family), found = [], match;
    regex.lastIndex = 0;
    while ((match = regex.exec(text)) !== null) {
      if (match[0] === "") { regex.lastIndex++; continue; }
      var end = match.index + match[0].length, css = match[1] ? "sx-comment" : match[2] ? "sx-string"
        : match[3] ? spec.specialClass : match[4] ? "sx-number"
        : match[5] ? wordClass(spec, match[5], text, end) : match[6] ? "sx-operator" : "sx-punctuation";
      if (css) { found.push([match.index, end, css]); }
    }
    return found;
  }

  function piece(css, text) {
    var element = document.createElement("span");
    element.className = css;
    element.textContent = text;
    return element;
  }

  /* The block's text nodes split in place around the coloured pieces. */
  function colourBlock(block) {
    var family = LANGUAGES[block.getAttribute("data-lang")];
    block.removeAttribute("data-lang");
    if (!family) { return; }
    var walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT), nodes = [], text = "", node;
    while ((node = walker.nextNode())) { nodes.push([node, text.length]); text += node.nodeValue; }
    var found = tokens(text, family), next = 0;
    nodes.forEach(function (item) {
      var start = item[1], end = start + item[0].nodeValue.length, at = start;
      var fragment = document.createDocumentFragment();
      while (next < found.length && found[next][0] < end) {
        var from = Math.max(found[next][0], start), to = Math.min(found[next][1], end);
        if (from > at) { fragment.appendChild(document.createTextNode(text.slice(at, from))); }
        fragment.appendChild(piece(found[next][2], text.slice(from, to)));
        at = to;
        if (found[next][1] > end) { break; }
        next++;
      }
      if (at === start) { return; }
      if (at < end) { fragment.appendChild(document.createTextNode(text.slice(at, end))); }
      item[0].parentNode.replaceChild(fragment, item[0]);
    });
  }

  return {
    colour: function (root) { root.querySelectorAll("[data-lang]").forEach(colourBlock); }
  };
})();
"""
