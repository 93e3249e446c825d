// Pi's side of test_pi16_branch_summary.py (ours: tree_back.py): /back moves the leaf to the
// entry named in its argument and summarizes the branch left behind.
export default function (pi: any) {
  pi.registerCommand("back", {
    handler: async (args: string, ctx: any) => {
      await ctx.navigateTree(args.trim(), { summarize: true });
    },
  });
}
