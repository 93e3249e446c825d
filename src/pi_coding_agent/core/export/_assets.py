"""The page's style sheet and script (inline: the page loads nothing from anywhere)."""

STYLE = """
:root { --bg: #f6f6f3; --card: #ffffff; --ink: #1f2328; --muted: #667085; --line: #d0d5dd;
  --user: #e8f0fe; --assistant: #ffffff; --tool: #f3f4f6; --bash: #111827; --summary: #fff7e0;
  --accent: #3b5bdb; --error: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { padding: 14px 22px; border-bottom: 1px solid var(--line); background: var(--card); }
header h1 { margin: 0 0 4px; font-size: 18px; }
header .facts { color: var(--muted); font-size: 12px; }
.layout { display: grid; grid-template-columns: minmax(220px, 320px) 1fr; min-height: calc(100vh - 70px); }
nav { border-right: 1px solid var(--line); padding: 12px 10px; overflow: auto; max-height: calc(100vh - 70px);
  position: sticky; top: 0; background: var(--card); }
nav h2, main h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 4px 0 8px; }
nav ol { list-style: none; margin: 0; padding: 0; }
nav li { padding-left: calc(var(--depth) * 14px); }
nav a { display: block; padding: 2px 6px; border-radius: 4px; color: var(--ink); text-decoration: none;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-size: 12px; }
nav a:hover { background: var(--tool); }
nav li.on-path > a { font-weight: 600; }
nav li.selected > a { background: var(--user); }
nav .tree-label { color: var(--accent); font-weight: 600; margin-right: 4px; }
main { padding: 16px 24px 40px; max-width: 980px; }
section.entry { background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin: 10px 0;
  padding: 10px 14px; }
section.entry h3 { margin: 0 0 6px; font-size: 12px; color: var(--muted); font-weight: 600; }
section.user { background: var(--user); }
section.tool-result { background: var(--tool); }
section.error-result { border-color: var(--error); }
section.bash pre { background: var(--bash); color: #e5e7eb; }
section.summary { background: var(--summary); }
section.note { padding: 4px 14px; font-size: 12px; color: var(--muted); }
section.note h3 { display: inline; margin-right: 6px; }
section.note div { display: inline; }
.text { white-space: pre-wrap; word-wrap: break-word; }
pre { white-space: pre-wrap; word-wrap: break-word; background: #f9fafb; padding: 8px; border-radius: 6px;
  margin: 6px 0; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.thinking { color: var(--muted); font-style: italic; margin: 4px 0; }
.tool-call { border-left: 3px solid var(--accent); padding-left: 8px; margin: 6px 0; }
.tool-name { font-weight: 600; font-family: ui-monospace, monospace; }
.meta { font-size: 11px; color: var(--muted); margin-bottom: 4px; }
.error { color: var(--error); }
.image { max-width: 100%; min-width: 32px; image-rendering: pixelated; border: 1px solid var(--line);
  border-radius: 4px; margin: 6px 0; }
details.system-prompt { margin: 10px 0; }
[hidden] { display: none !important; }
"""

SCRIPT = """
(function () {
  var parents = JSON.parse(document.getElementById("session-parents").textContent);
  var leaf = document.body.getAttribute("data-leaf");
  function pathTo(id) {
    var onPath = {};
    var guard = 0;
    while (id && parents.hasOwnProperty(id) && !onPath[id] && guard++ < 1000000) {
      onPath[id] = true;
      id = parents[id];
    }
    return onPath;
  }
  function show(id) {
    var onPath = pathTo(id);
    document.querySelectorAll("section.entry").forEach(function (section) {
      section.hidden = !onPath[section.getAttribute("data-id")];
    });
    document.querySelectorAll("nav li").forEach(function (item) {
      var entry = item.getAttribute("data-id");
      item.classList.toggle("on-path", !!onPath[entry]);
      item.classList.toggle("selected", entry === id);
    });
  }
  document.querySelectorAll("nav a").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      show(link.parentNode.getAttribute("data-id"));
    });
  });
  if (leaf) { show(leaf); }
})();
"""
