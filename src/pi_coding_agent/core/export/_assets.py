"""The page's style sheet and script, inline: the page loads nothing from anywhere.

Colours are the theme's CSS variables (``--text``, ``--userMessageBg``, ``--syntaxKeyword``, ...,
written before this sheet). The script switches the shown branch, filters and searches the
tree, folds and unfolds, follows ``?leafId=...&targetId=...`` links and colours code as it is
drawn (``_highlight``); it reads text from the page only as text (``textContent``) and writes no
markup.
"""

STYLE = """
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { background: var(--exportPageBg); color: var(--text); font: 13px/1.55 ui-monospace, "SFMono-Regular",
  "DejaVu Sans Mono", Menlo, Consolas, monospace; }
[hidden] { display: none !important; }
#app { display: flex; height: 100vh; }
#sidebar { width: 400px; min-width: 240px; max-width: 45vw; display: flex; flex-direction: column;
  border-right: 1px solid var(--borderMuted); background: var(--exportCardBg); resize: horizontal; overflow: hidden; }
.sidebar-header { padding: 8px; border-bottom: 1px solid var(--borderMuted); }
.sidebar-search { width: 100%; padding: 4px 6px; background: var(--exportPageBg); color: var(--text);
  border: 1px solid var(--borderMuted); border-radius: 3px; font: inherit; }
.sidebar-filters { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 6px; }
button { font: inherit; cursor: pointer; }
.filter-btn, .header-toggle { background: transparent; color: var(--muted); border: 1px solid var(--borderMuted);
  border-radius: 3px; padding: 1px 6px; font-size: 11px; }
.filter-btn.active, .filter-btn:hover, .header-toggle:hover { color: var(--accent); border-color: var(--accent); }
.tree-container { flex: 1; overflow: auto; padding: 4px 0; font-size: 12px; }
#tree-rows { position: relative; }
.tree-node { white-space: pre; padding: 0 8px; cursor: pointer; overflow: hidden; text-overflow: ellipsis;
  height: 18px; line-height: 18px; }
.tree-node:hover { background: var(--selectedBg); }
.tree-node.active { background: var(--selectedBg); outline: 1px solid var(--accent); }
.tree-node.in-path .tree-content { font-weight: bold; }
.tree-prefix, .tree-marker { color: var(--dim); }
.tree-node.in-path .tree-marker { color: var(--accent); }
.tree-label { color: var(--warning); }
.tree-role-user { color: var(--accent); }
.tree-role-assistant { color: var(--success); }
.tree-role-tool { color: var(--muted); }
.tree-role-skill, .tree-role-custom { color: var(--customMessageLabel); }
.tree-role-compaction, .tree-role-branch-summary { color: var(--warning); }
.tree-role-muted { color: var(--dim); }
.tree-status { padding: 4px 8px; border-top: 1px solid var(--borderMuted); color: var(--dim); font-size: 11px; }
#content { flex: 1; overflow: auto; padding: 16px 24px 48px; overflow-anchor: none; }
#messages, .header, .system-prompt, .tools-list { max-width: 1000px; }
.header { background: var(--exportCardBg); border: 1px solid var(--borderMuted); border-radius: 4px; padding: 12px 16px; }
.header h1 { margin: 0 0 6px; font-size: 15px; color: var(--borderAccent); }
.help-bar { display: flex; justify-content: space-between; gap: 8px; color: var(--dim); font-size: 11px; margin-bottom: 8px; }
.help-actions { display: flex; gap: 4px; }
.header-info { display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: 2px 16px; }
.info-label { color: var(--muted); margin-right: 6px; }
.system-prompt, .tools-list { background: var(--exportCardBg); border: 1px solid var(--borderMuted); border-radius: 4px;
  margin-top: 10px; padding: 8px 12px; }
.system-entry .message-timestamp { float: none; display: block; text-align: right; }
.system-prompt-header, .tools-header { color: var(--customMessageLabel); font-weight: bold; margin-bottom: 4px; }
.tool-item-name, .tool-param-name { color: var(--accent); }
.tool-item-desc, .tool-param-desc { color: var(--muted); }
.tool-param { margin-left: 16px; }
.tool-param-type { color: var(--syntaxType); }
.tool-param-required { color: var(--warning); }
.tool-param-optional { color: var(--dim); }
pre { margin: 0; white-space: pre-wrap; word-wrap: break-word; font: inherit; }
section.entry { margin: 12px 0; position: relative; content-visibility: auto; contain-intrinsic-size: auto 120px; }
section.entry.highlight > * { outline: 2px solid var(--accent); }
.message-timestamp { float: right; color: var(--dim); font-size: 11px; margin-left: 8px; }
.copy-link { float: right; background: none; border: none; color: var(--dim); padding: 0 4px; visibility: hidden; }
section.entry:hover .copy-link { visibility: visible; }
.user-message { background: var(--userMessageBg); color: var(--userMessageText); padding: 8px 12px; border-radius: 4px; }
.assistant-message { padding: 0 12px; }
.assistant-text { margin: 4px 0; }
.thinking-block { color: var(--thinkingText); font-style: italic; margin: 4px 0; }
.thinking-text { white-space: pre-wrap; }
.thinking-folded { display: none; }
body.thinking-hidden .thinking-text { display: none; }
body.thinking-hidden .thinking-folded { display: block; }
.tool-execution { background: var(--toolPendingBg); padding: 8px 12px; border-radius: 4px; margin: 8px 0; }
.tool-execution.success { background: var(--toolSuccessBg); }
.tool-execution.error { background: var(--toolErrorBg); }
.tool-header, .tool-command { color: var(--toolTitle); font-weight: bold; white-space: pre-wrap; word-wrap: break-word; }
.tool-name { color: var(--toolTitle); }
.tool-path { color: var(--accent); font-weight: normal; }
.line-numbers { color: var(--warning); }
.line-count, .muted { color: var(--dim); }
.tool-output, .tool-args { color: var(--toolOutput); margin-top: 6px; }
.tool-error, .error-text { color: var(--error); }
.warning-text { color: var(--warning); }
.tool-diff { margin-top: 6px; white-space: pre-wrap; word-wrap: break-word; }
.diff-added { color: var(--toolDiffAdded); }
.diff-removed { color: var(--toolDiffRemoved); }
.diff-context { color: var(--toolDiffContext); }
.foldable { cursor: pointer; }
.foldable .fold-rest { display: none; }
.foldable.open .fold-rest { display: inline; }
.foldable.open > .fold-rest { display: block; }
.foldable.open .fold-hint { display: none; }
.fold-hint { color: var(--dim); font-style: italic; }
.model-change { color: var(--dim); font-size: 12px; padding: 0 12px; }
.model-name { color: var(--accent); }
.compaction, .branch-summary { background: var(--exportInfoBg); padding: 8px 12px; border-radius: 4px; white-space: pre-wrap; }
.compaction-label, .branch-summary-header { color: var(--warning); font-weight: bold; }
.compaction .fold-rest { white-space: pre-wrap; }
.branch-summary { white-space: normal; }
.hook-message, .skill-invocation { background: var(--customMessageBg); color: var(--customMessageText); padding: 8px 12px; border-radius: 4px; }
.skill-entry .user-message { margin-top: 6px; }
.hook-type, .skill-label { color: var(--customMessageLabel); font-weight: bold; }
.message-images { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 6px; }
.message-image, .tool-image { max-width: 100%; max-height: 360px; min-width: 24px; border-radius: 3px; cursor: zoom-in;
  image-rendering: auto; }
.image-modal { position: fixed; inset: 0; background: rgba(0, 0, 0, .85); display: flex; align-items: center;
  justify-content: center; cursor: zoom-out; z-index: 10; }
.image-modal img { max-width: 95vw; max-height: 95vh; }
.markdown > :first-child { margin-top: 0; }
.markdown > :last-child { margin-bottom: 0; }
.markdown p { margin: 6px 0; }
.markdown h1, .markdown h2, .markdown h3, .markdown h4, .markdown h5, .markdown h6 { color: var(--mdHeading);
  margin: 10px 0 6px; font-size: 1em; font-weight: bold; }
.markdown h1 { text-decoration: underline; }
.markdown a { color: var(--mdLink); }
.markdown code { color: var(--mdCode); }
.markdown pre.code-block { border-left: 2px solid var(--mdCodeBlockBorder); padding: 4px 10px; margin: 6px 0;
  background: var(--exportPageBg); }
.markdown pre.code-block code { color: var(--mdCodeBlock); }
.markdown blockquote { color: var(--mdQuote); border-left: 2px solid var(--mdQuoteBorder); margin: 6px 0; padding-left: 10px; }
.markdown hr { border: none; border-top: 1px solid var(--mdHr); }
.markdown ul, .markdown ol { margin: 4px 0; padding-left: 24px; }
.markdown li::marker { color: var(--mdListBullet); }
.markdown table { border-collapse: collapse; margin: 6px 0; }
.markdown th, .markdown td { border: 1px solid var(--borderMuted); padding: 2px 8px; }
.markdown th { color: var(--mdHeading); }
.sx-comment { color: var(--syntaxComment); }
.sx-keyword { color: var(--syntaxKeyword); }
.sx-function { color: var(--syntaxFunction); }
.sx-variable { color: var(--syntaxVariable); }
.sx-string { color: var(--syntaxString); }
.sx-number { color: var(--syntaxNumber); }
.sx-type { color: var(--syntaxType); }
.sx-operator { color: var(--syntaxOperator); }
.sx-punctuation { color: var(--syntaxPunctuation); }
@media (max-width: 800px) {
  #app { flex-direction: column; height: auto; }
  #sidebar { width: auto; max-width: none; max-height: 40vh; resize: none; }
}
"""

SCRIPT = """
(function () {
  "use strict";
  var ROW = 18, OVERSCAN = 1000, STEP = 40, NEAR = 3000, SETTLE_FRAMES = 60;
  var data = JSON.parse(document.getElementById("page-data").textContent);
  var content = document.getElementById("content");
  var messages = document.getElementById("messages");
  var windowTop = document.getElementById("window-top");
  var windowEnd = document.getElementById("window-end");
  var treeBox = document.getElementById("tree-container");
  var treeRows = document.getElementById("tree-rows");
  var tree = null, children = [], byId = {};
  var leaf = -1, onPath = null, branch = [], lo = 0, hi = 0, generation = 0, busy = false;
  var rows = [], activeRow = -1, filter = "default", query = [], toolsOpen = false;
  var unpacked = {};

  function inflate(base64) {
    var binary = atob(base64), bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  function chunkOf(index) {
    var low = 0, high = data.starts.length - 1;
    while (low < high) {
      var middle = (low + high + 1) >> 1;
      if (data.starts[middle] <= index) { low = middle; } else { high = middle - 1; }
    }
    return low;
  }

  function fragments(indices) {
    var needed = {};
    indices.forEach(function (index) { needed[chunkOf(index)] = true; });
    return Promise.all(Object.keys(needed).map(function (chunk) {
      if (!unpacked[chunk]) { unpacked[chunk] = inflate(data.chunks[chunk]).then(JSON.parse); }
      return unpacked[chunk];
    })).then(function () {
      return Promise.all(indices.map(function (index) {
        var chunk = chunkOf(index);
        return unpacked[chunk].then(function (list) { return list[index - data.starts[chunk]]; });
      }));
    });
  }

  // ---- the shown branch, inserted as it comes into view ----

  function pathOf(index) {
    var path = [], seen = {};
    while (index >= 0 && !seen[index]) { seen[index] = true; path.push(index); index = tree.parents[index]; }
    return path.reverse();
  }

  function localize(root) {
    root.querySelectorAll("time[datetime]").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment.getTime())) { return; }
      element.textContent = element.getAttribute("data-format") === "date" ? moment.toLocaleString()
        : moment.toLocaleTimeString(undefined, {hour: "2-digit", minute: "2-digit", second: "2-digit"});
    });
    PiSyntax.colour(root);
    if (toolsOpen) { openTools(root, true); }
  }

  function insert(html, before) {
    var template = document.createElement("template");
    template.innerHTML = html.join("");
    localize(template.content);
    messages.insertBefore(template.content, before);
  }

  function scrollBy(delta) {
    var before = content.scrollTop;
    content.scrollTop += delta;
    var left = delta - (content.scrollTop - before);
    if (left) { window.scrollBy(0, left); }
  }

  function extend() {
    if (busy || !tree) { return; }
    var down = hi < branch.length && windowEnd.getBoundingClientRect().top < window.innerHeight + NEAR;
    var up = !down && lo > 0 && windowTop.getBoundingClientRect().bottom > -NEAR;
    if (!down && !up) { return; }
    var from = down ? hi : Math.max(0, lo - STEP), to = down ? Math.min(branch.length, hi + STEP) : lo;
    var current = generation;
    busy = true;
    fragments(branch.slice(from, to)).then(function (html) {
      busy = false;
      if (current !== generation) { return; }
      if (down) {
        insert(html, windowEnd);
        hi = to;
      } else {
        var anchor = firstInView(), y = anchor.getBoundingClientRect().top;
        insert(html, windowTop.nextSibling);
        lo = from;
        scrollBy(anchor.getBoundingClientRect().top - y);
      }
      extend();
    });
  }

  /* The first element of the conversation in view: it stays where it is when entries are
     inserted above it. */
  function firstInView() {
    var top = Math.max(0, content.getBoundingClientRect().top);
    for (var element = windowTop.nextElementSibling; element !== windowEnd; element = element.nextElementSibling) {
      if (element.getBoundingClientRect().bottom > top) { return element; }
    }
    return windowEnd;
  }

  var scheduled = false;
  function onScroll() {
    if (scheduled) { return; }
    scheduled = true;
    requestAnimationFrame(function () { scheduled = false; extend(); });
  }

  function showBranch(index, target) {
    generation++;
    leaf = index;
    var path = pathOf(index);
    onPath = {};
    path.forEach(function (i) { onPath[i] = true; });
    branch = path.filter(function (i) { return tree.shown.charAt(i) === "1"; });
    var at = 0;
    if (target >= 0) {
      var step = target, seen = {};
      while (step >= 0 && !(onPath[step] && tree.shown.charAt(step) === "1") && !seen[step]) { seen[step] = true; step = tree.parents[step]; }
      at = Math.max(0, branch.indexOf(step));
    }
    var from = Math.max(0, at - (STEP >> 1)), to = Math.min(branch.length, from + STEP);
    var current = generation;
    busy = true;
    return fragments(branch.slice(from, to)).then(function (html) {
      busy = false;
      if (current !== generation) { return; }
      while (windowTop.nextSibling !== windowEnd) { messages.removeChild(windowTop.nextSibling); }
      insert(html, windowEnd);
      lo = from;
      hi = to;
      if (target < 0) { content.scrollTop = 0; extend(); return; }
      return scrollToEntry(branch[at]).then(extend);
    });
  }

  /* Entries off screen are laid out at an estimated height (content-visibility) and take their
     real one once drawn, which moves the target: scroll, let a frame draw what came into view,
     measure again, until the target stays put. */
  function scrollToEntry(index) {
    var section = index === undefined ? null : document.getElementById("entry-" + tree.ids[index]);
    if (!section) { return Promise.resolve(); }
    section.classList.add("highlight");
    setTimeout(function () { section.classList.remove("highlight"); }, 2000);
    var current = generation, frames = 0, still = 0;
    return new Promise(function (done) {
      (function step() {
        if (current !== generation || frames++ > SETTLE_FRAMES) { done(); return; }
        var box = section.getBoundingClientRect();
        var delta = box.top - Math.max(0, content.getBoundingClientRect().top) - Math.max(0, (content.clientHeight - box.height) / 2);
        if (Math.abs(delta) >= 1) { still = 0; scrollBy(delta); } else if (++still > 1) { done(); return; }
        requestAnimationFrame(step);
      })();
    });
  }

  // ---- the tree: laid out from data, only the rows in view drawn ----

  function passes(index) {
    if (index === leaf) { return true; }
    var flags = tree.flags[index];
    if (flags.indexOf("q") >= 0) { return false; }
    var settings = flags.indexOf("s") >= 0, label = tree.labels[index];
    var ok = filter === "all" ? true
      : filter === "user-only" ? flags.indexOf("u") >= 0
      : filter === "labeled-only" ? label !== undefined
      : filter === "no-tools" ? !settings && flags.indexOf("r") < 0
      : !settings;
    if (!ok) { return false; }
    if (query.length) {
      var text = ((label !== undefined ? "[" + label + "] " : "") + tree.titles[index]).toLowerCase();
      for (var i = 0; i < query.length; i++) { if (text.indexOf(query[i]) < 0) { return false; } }
    }
    return true;
  }

  /* Depth first, the branch holding the leaf first among siblings; the rows a filter hides are
     left out and their children hang from the nearest row shown, indented as /tree indents. */
  function layout() {
    var order = [], stack = [];
    var roots = children.roots.slice().sort(function (a, b) { return (onPath[a] ? 0 : 1) - (onPath[b] ? 0 : 1); });
    for (var r = roots.length - 1; r >= 0; r--) { stack.push(roots[r]); }
    var kids = {}, visibleParent = {}, visibleRoots = [], visible = {};
    while (stack.length) {
      var node = stack.pop();
      order.push(node);
      var parent = tree.parents[node];
      var shownParent = parent < 0 ? -1 : (visible[parent] ? parent : visibleParent[parent]);
      visibleParent[node] = shownParent === undefined ? -1 : shownParent;
      if (passes(node)) {
        visible[node] = true;
        if (visibleParent[node] < 0) { visibleRoots.push(node); } else { (kids[visibleParent[node]] = kids[visibleParent[node]] || []).push(node); }
      }
      var list = children[node] || [];
      var first = [], rest = [];
      list.forEach(function (child) { (onPath[child] ? first : rest).push(child); });
      list = first.concat(rest);
      for (var c = list.length - 1; c >= 0; c--) { stack.push(list[c]); }
    }
    var several = visibleRoots.length > 1, laid = [], pending = [];
    for (var v = visibleRoots.length - 1; v >= 0; v--) {
      pending.push([visibleRoots[v], several ? 1 : 0, several, several, v === visibleRoots.length - 1, [], several]);
    }
    while (pending.length) {
      var item = pending.pop(), index = item[0], indent = item[1], justBranched = item[2];
      var connector = item[3], last = item[4], gutters = item[5], rootChild = item[6];
      laid.push([index, prefix(indent, connector && !rootChild, last, gutters, several)]);
      var below = kids[index] || [], branching = below.length > 1;
      var childIndent = branching || (justBranched && indent > 0) ? indent + 1 : indent;
      var childGutters = gutters;
      if (connector && !rootChild) {
        var shown = several ? Math.max(0, indent - 1) : indent;
        childGutters = gutters.concat([[Math.max(0, shown - 1), !last]]);
      }
      for (var k = below.length - 1; k >= 0; k--) {
        pending.push([below[k], childIndent, branching, branching, k === below.length - 1, childGutters, false]);
      }
    }
    return laid;
  }

  function prefix(indent, connector, last, gutters, several) {
    var width = several ? Math.max(0, indent - 1) : indent, at = connector ? width - 1 : -1, drawn = {}, cells = "";
    gutters.forEach(function (gutter) { if (!(gutter[0] in drawn)) { drawn[gutter[0]] = gutter[1]; } });
    for (var level = 0; level < width; level++) {
      cells += level in drawn ? (drawn[level] ? "\\u2502  " : "   ") : level === at ? (last ? "\\u2514\\u2500 " : "\\u251c\\u2500 ") : "   ";
    }
    return cells;
  }

  function span(className, text) {
    var element = document.createElement("span");
    element.className = className;
    element.textContent = text;
    return element;
  }

  function rowElement(position) {
    var index = rows[position][0], element = document.createElement("div"), label = tree.labels[index];
    element.className = "tree-node" + (onPath[index] ? " in-path" : "") + (index === activeRow ? " active" : "");
    element.setAttribute("data-id", tree.ids[index]);
    element.setAttribute("data-index", index);
    element.style.top = position * ROW + "px";
    element.appendChild(span("tree-prefix", rows[position][1]));
    element.appendChild(span("tree-marker", onPath[index] ? "\\u2022" : " "));
    var text = span("tree-content", "");
    if (label !== undefined) { text.appendChild(span("tree-label", "[" + label + "]")); text.appendChild(document.createTextNode(" ")); }
    text.appendChild(span("tree-role-" + tree.roles[index], tree.titles[index]));
    element.appendChild(text);
    return element;
  }

  function drawRows() {
    var first = Math.max(0, Math.floor(treeBox.scrollTop / ROW) - OVERSCAN);
    var last = Math.min(rows.length, Math.ceil((treeBox.scrollTop + treeBox.clientHeight) / ROW) + OVERSCAN);
    var fragment = document.createDocumentFragment();
    for (var position = first; position < last; position++) { fragment.appendChild(rowElement(position)); }
    treeRows.replaceChildren(fragment);
  }

  function relayout(reveal) {
    rows = layout();
    treeRows.style.height = rows.length * ROW + "px";
    document.getElementById("tree-status").textContent = rows.length + " / " + tree.ids.length + " entries";
    if (reveal) {
      for (var position = 0; position < rows.length; position++) {
        if (rows[position][0] === activeRow) {
          var top = position * ROW;
          if (top < treeBox.scrollTop || top + ROW > treeBox.scrollTop + treeBox.clientHeight) {
            treeBox.scrollTop = Math.max(0, top - treeBox.clientHeight / 2);
          }
          break;
        }
      }
    }
    drawRows();
  }

  var treeScheduled = false;
  treeBox.addEventListener("scroll", function () {
    if (treeScheduled) { return; }
    treeScheduled = true;
    requestAnimationFrame(function () { treeScheduled = false; drawRows(); });
  });

  function newestLeaf(index) {
    while (children[index] && children[index].length) { index = children[index][children[index].length - 1]; }
    return index;
  }

  function show(leafIndex, target) {
    activeRow = target >= 0 ? target : leafIndex;
    document.body.removeAttribute("data-ready");
    var done = showBranch(leafIndex, target).then(ready);
    relayout(true);
    return done;
  }

  function ready() { document.body.setAttribute("data-ready", String(performance.now())); }

  treeRows.addEventListener("click", function (event) {
    var row = event.target.closest(".tree-node");
    if (!row || String(window.getSelection())) { return; }
    var index = Number(row.getAttribute("data-index"));
    show(newestLeaf(index), index);
  });

  document.querySelectorAll(".filter-btn").forEach(function (button) {
    button.addEventListener("click", function () {
      document.querySelectorAll(".filter-btn").forEach(function (other) { other.classList.toggle("active", other === button); });
      filter = button.getAttribute("data-filter");
      if (tree) { relayout(false); }
    });
  });
  document.getElementById("tree-search").addEventListener("input", function (event) {
    query = event.target.value.toLowerCase().split(/\\s+/).filter(Boolean);
    if (tree) { relayout(false); }
  });

  // ---- the conversation's controls ----

  messages.addEventListener("click", function (event) {
    var target = event.target;
    var copy = target.closest(".copy-link");
    if (copy) {
      var url = location.href.split(/[?#]/)[0] + "?leafId=" + encodeURIComponent(tree ? tree.ids[leaf] : "") +
        "&targetId=" + encodeURIComponent(copy.getAttribute("data-entry-id"));
      if (navigator.clipboard) { navigator.clipboard.writeText(url).catch(function () {}); }
      copy.textContent = "\\u2713";
      setTimeout(function () { copy.textContent = "#"; }, 1500);
      return;
    }
    if (target.tagName === "IMG") {
      document.getElementById("modal-image").src = target.src;
      document.getElementById("image-modal").hidden = false;
      return;
    }
    var foldable = target.closest(".foldable");
    if (foldable && !String(window.getSelection())) { foldable.classList.toggle("open"); }
  });
  content.addEventListener("click", function (event) {
    var foldable = event.target.closest(".system-prompt.foldable, .tool-item.foldable");
    if (foldable && !messages.contains(foldable) && !String(window.getSelection())) { foldable.classList.toggle("open"); }
  });
  document.getElementById("image-modal").addEventListener("click", function () { this.hidden = true; });

  function openTools(root, open) {
    root.querySelectorAll(".tool-output.foldable, .compaction.foldable, .skill-invocation.foldable").forEach(function (element) {
      element.classList.toggle("open", open);
    });
  }
  function toggleThinking() { document.body.classList.toggle("thinking-hidden"); }
  function toggleTools() { toolsOpen = !toolsOpen; openTools(messages, toolsOpen); }
  function downloadJsonl() {
    inflate(data.session).then(function (text) {
      var link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([text], {type: "application/x-ndjson"}));
      link.download = data.file;
      document.body.appendChild(link);
      link.click();
      document.body.removeChild(link);
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    });
  }
  document.querySelector('[data-action="toggle-thinking"]').addEventListener("click", toggleThinking);
  document.querySelector('[data-action="toggle-tools"]').addEventListener("click", toggleTools);
  document.querySelector('[data-action="download-jsonl"]').addEventListener("click", downloadJsonl);
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (target && (/^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName) || target.isContentEditable)) { return; }
    var key = event.key.toLowerCase();
    if (key === "t") { event.preventDefault(); toggleThinking(); }
    else if (key === "o") { event.preventDefault(); toggleTools(); }
    else if (key === "escape") { document.getElementById("image-modal").hidden = true; }
  });
  localize(document);
  content.addEventListener("scroll", onScroll);
  window.addEventListener("scroll", onScroll);

  // ---- start: unpack the tree, then show the linked branch or the file's ----

  inflate(data.tree).then(JSON.parse).then(function (value) {
    tree = value;
    var labels = {};
    tree.labels.forEach(function (pair) { labels[pair[0]] = pair[1]; });
    tree.labels = labels;
    children = {roots: []};
    tree.ids.forEach(function (id, index) {
      byId[id] = index;
      var parent = tree.parents[index];
      if (parent < 0) { children.roots.push(index); } else { (children[parent] = children[parent] || []).push(index); }
    });
    var params = new URLSearchParams(location.search);
    var linkedLeaf = params.get("leafId"), linkedTarget = params.get("targetId");
    var target = linkedTarget !== null && byId.hasOwnProperty(linkedTarget) ? byId[linkedTarget] : -1;
    if (linkedLeaf !== null && byId.hasOwnProperty(linkedLeaf)) { return show(byId[linkedLeaf], target); }
    leaf = tree.leaf;
    activeRow = leaf;
    onPath = {};
    pathOf(leaf).forEach(function (i) { onPath[i] = true; });
    branch = pathOf(leaf).filter(function (i) { return tree.shown.charAt(i) === "1"; });
    lo = 0;
    hi = data.window;
    relayout(true);
    if (target >= 0) { return show(leaf, target); }
    extend();
  }).then(ready).catch(function (error) {
    document.getElementById("tree-status").textContent = "This browser cannot unpack the page: " + error;
    throw error;
  });
})();
"""
