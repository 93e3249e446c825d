"""Our side of test_pi16_entry_appended.py (Pi's: ``note_entry.ts``): ``/note`` appends a
custom entry."""


def setup(pi):
    async def note(args, ctx):
        pi.append_entry("note", {"text": args, "count": 2})

    pi.register_command("note", note)
