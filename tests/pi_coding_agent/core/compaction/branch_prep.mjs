// Pi 0.85's own branch-summary preparation for a session file, as JSON on stdout.
//
//   node branch_prep.mjs PI_PACKAGE_DIR CASES.json
//
// CASES.json: {"file": session path, "cases": [{"oldLeafId", "targetId", "budget"}]}. For each
// case: the entries collectEntriesForBranchSummary leaves behind, prepareBranchEntries' messages,
// file operations and token total, and the file lists a summary's `details` would hold.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [packageDir, casesFile] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(`${packageDir}/dist/${path}`).href);
const { SessionManager, collectEntriesForBranchSummary, prepareBranchEntries } = await load("index.js");
const { computeFileLists, formatFileOperations } = await load("core/compaction/utils.js");

const { file, cases } = JSON.parse(readFileSync(casesFile, "utf8"));
const session = SessionManager.open(file);
const sorted = (set) => [...set].sort();
const answers = cases.map(({ oldLeafId, targetId, budget }) => {
  const collected = collectEntriesForBranchSummary(session, oldLeafId, targetId);
  const prepared = prepareBranchEntries(collected.entries, budget);
  const lists = computeFileLists(prepared.fileOps);
  return {
    entryIds: collected.entries.map((entry) => entry.id),
    commonAncestorId: collected.commonAncestorId,
    messages: prepared.messages,
    fileOps: {
      read: sorted(prepared.fileOps.read),
      written: sorted(prepared.fileOps.written),
      edited: sorted(prepared.fileOps.edited),
    },
    totalTokens: prepared.totalTokens,
    details: lists,
    formatted: formatFileOperations(lists.readFiles, lists.modifiedFiles),
  };
});
process.stdout.write(JSON.stringify(answers));
