// Pi's side of test_pi16_entry_appended.py (ours: note_entry.py): /note appends a custom entry.
export default function (pi: any) {
  pi.registerCommand("note", {
    handler: async (args: string) => {
      pi.appendEntry("note", { text: args, count: 2 });
    },
  });
}
