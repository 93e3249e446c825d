"""Our side of test_pi16_branch_summary.py (Pi's: ``tree_back.ts``): ``/back`` moves the leaf
to the entry named in its argument and summarizes the branch left behind."""


def setup(pi):
    async def back(args, ctx):
        await ctx.navigate_tree(args.strip(), summarize=True)

    pi.register_command("back", back)
