"""The page's style sheet and script, inline: the page loads nothing from anywhere.

Colours are the theme's CSS variables (``--text``, ``--userMessageBg``, ``--syntaxKeyword``, ...,
written before this sheet). The script switches the shown branch, filters and searches the
tree, folds and unfolds, and follows ``?leafId=...&targetId=...`` links; it reads text from the
page only as text (``textContent``) and writes no markup.
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
.tree-node { white-space: pre; padding: 0 8px; cursor: pointer; overflow: hidden; text-overflow: ellipsis; }
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
#content { flex: 1; overflow: auto; padding: 16px 24px 48px; }
#messages, .header, .system-prompt, .tools-list { max-width: 1000px; }
.header { background: var(--exportCardBg); border: 1px solid var(--borderMuted); border-radius: 4px; padding: 12px 16px; }
.header h1 { margin: 0 0 6px; font-size: 15px; color: var(--borderAccent); }
.help-bar { display: flex; justify-content: space-between; gap: 8px; color: var(--dim); font-size: 11px; margin-bottom: 8px; }
.help-actions { display: flex; gap: 4px; }
.header-info { display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: 2px 16px; }
.info-label { color: var(--muted); margin-right: 6px; }
.system-prompt, .tools-list { background: var(--exportCardBg); border: 1px solid var(--borderMuted); border-radius: 4px;
  margin-top: 10px; padding: 8px 12px; }
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
  var parents = JSON.parse(document.getElementById("session-parents").textContent);
  var tree = document.getElementById("tree-container");
  var rows = Array.prototype.slice.call(tree.children);
  var sections = Array.prototype.slice.call(document.querySelectorAll("#messages > section.entry"));
  var leaf = document.body.getAttribute("data-leaf");
  var filter = "default";
  var query = [];

  function has(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  function pathTo(id) {
    var onPath = {};
    var steps = 0;
    while (id !== null && id !== undefined && has(parents, id) && !has(onPath, id) && steps++ < 10000000) {
      onPath[id] = true;
      id = parents[id];
    }
    return onPath;
  }

  function rowShown(row) {
    var id = row.getAttribute("data-id");
    if (id === leaf) { return true; }
    var flags = row.getAttribute("data-f");
    if (flags.indexOf("q") >= 0 && filter !== "all") { return false; }
    var settings = flags.indexOf("s") >= 0;
    var passes = filter === "all" ? true
      : filter === "user-only" ? flags.indexOf("u") >= 0
      : filter === "labeled-only" ? flags.indexOf("l") >= 0
      : filter === "no-tools" ? !settings && flags.indexOf("r") < 0
      : !settings;
    if (!passes) { return false; }
    if (query.length) {
      var text = row.textContent.toLowerCase();
      for (var i = 0; i < query.length; i++) { if (text.indexOf(query[i]) < 0) { return false; } }
    }
    return true;
  }

  function applyFilter() {
    var shown = 0;
    rows.forEach(function (row) {
      var visible = rowShown(row);
      row.hidden = !visible;
      if (visible) { shown++; }
    });
    document.getElementById("tree-status").textContent = shown + " / " + rows.length + " entries";
  }

  function scrollTo(targetId) {
    var section = document.getElementById("entry-" + targetId);
    if (!section || section.hidden) {
      var previous = targetId;
      while (previous !== null && has(parents, previous)) {
        section = document.getElementById("entry-" + previous);
        if (section && !section.hidden) { break; }
        previous = parents[previous];
      }
    }
    if (section) {
      section.scrollIntoView({block: "center"});
      section.classList.add("highlight");
      setTimeout(function () { section.classList.remove("highlight"); }, 2000);
    }
  }

  function show(leafId, targetId) {
    leaf = leafId;
    var onPath = pathTo(leafId);
    sections.forEach(function (section) { section.hidden = !has(onPath, section.getAttribute("data-id")); });
    rows.forEach(function (row) {
      var id = row.getAttribute("data-id");
      var inPath = has(onPath, id);
      row.classList.toggle("in-path", inPath);
      row.classList.toggle("active", id === (targetId || leafId));
      row.querySelector(".tree-marker").textContent = inPath ? "\\u2022" : " ";
    });
    applyFilter();
    revealActiveRow();
    if (targetId) { scrollTo(targetId); }
  }

  function revealActiveRow() {
    var active = tree.querySelector(".tree-node.active");
    if (active) { active.scrollIntoView({block: "nearest"}); }
  }

  tree.addEventListener("click", function (event) {
    var row = event.target.closest(".tree-node");
    if (!row || String(window.getSelection())) { return; }
    show(row.getAttribute("data-leaf"), row.getAttribute("data-id"));
  });

  document.querySelectorAll(".filter-btn").forEach(function (button) {
    button.addEventListener("click", function () {
      document.querySelectorAll(".filter-btn").forEach(function (other) { other.classList.toggle("active", other === button); });
      filter = button.getAttribute("data-filter");
      applyFilter();
    });
  });
  document.getElementById("tree-search").addEventListener("input", function (event) {
    query = event.target.value.toLowerCase().split(/\\s+/).filter(Boolean);
    applyFilter();
  });

  document.getElementById("messages").addEventListener("click", function (event) {
    var target = event.target;
    var copy = target.closest(".copy-link");
    if (copy) {
      var url = location.href.split(/[?#]/)[0] + "?leafId=" + encodeURIComponent(leaf) +
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
  document.getElementById("content").addEventListener("click", function (event) {
    var foldable = event.target.closest(".system-prompt.foldable, .tool-item.foldable");
    if (foldable && !String(window.getSelection())) { foldable.classList.toggle("open"); }
  });
  document.getElementById("image-modal").addEventListener("click", function () { this.hidden = true; });

  var toolsOpen = false;
  function toggleThinking() { document.body.classList.toggle("thinking-hidden"); }
  function toggleTools() {
    toolsOpen = !toolsOpen;
    document.querySelectorAll(".tool-output.foldable, .compaction.foldable, .skill-invocation.foldable").forEach(function (element) {
      element.classList.toggle("open", toolsOpen);
    });
  }
  document.querySelector('[data-action="toggle-thinking"]').addEventListener("click", toggleThinking);
  document.querySelector('[data-action="toggle-tools"]').addEventListener("click", toggleTools);
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (target && (/^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName) || target.isContentEditable)) { return; }
    var key = event.key.toLowerCase();
    if (key === "t") { event.preventDefault(); toggleThinking(); }
    else if (key === "o") { event.preventDefault(); toggleTools(); }
    else if (key === "escape") { document.getElementById("image-modal").hidden = true; }
  });

  document.querySelectorAll("time[datetime]").forEach(function (element) {
    var moment = new Date(element.getAttribute("datetime"));
    if (isNaN(moment.getTime())) { return; }
    element.textContent = element.getAttribute("data-format") === "date" ? moment.toLocaleString()
      : moment.toLocaleTimeString(undefined, {hour: "2-digit", minute: "2-digit", second: "2-digit"});
  });

  var params = new URLSearchParams(location.search);
  var linkedLeaf = params.get("leafId");
  var linkedTarget = params.get("targetId");
  if (linkedLeaf && has(parents, linkedLeaf)) {
    show(linkedLeaf, linkedTarget && has(parents, linkedTarget) ? linkedTarget : null);
  } else {
    applyFilter();
    revealActiveRow();
    if (linkedTarget && has(parents, linkedTarget)) { scrollTo(linkedTarget); }
  }
})();
"""
