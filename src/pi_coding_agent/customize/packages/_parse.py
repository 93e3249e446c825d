"""The package commands' arguments, read as Pi 0.85's package CLI reads them (options,
messages and usage lines are Pi's, less what is not built: see ``docs/packages.md``)."""

from __future__ import annotations

from dataclasses import dataclass, field

PACKAGE_COMMANDS = ("install", "remove", "uninstall", "update", "list", "config")

USAGE = {
    "install": "pi install <source> [-l] [--approve|--no-approve]",
    "remove": "pi remove <source> [-l] [--approve|--no-approve]",
    "update": "pi update [source|self|pi] [--self|--extensions|--models|--all] [--extension <source>] [--approve|--no-approve] [--force]",
    "list": "pi list [--approve|--no-approve]",
    "config": "pi config [-l] [--approve|--no-approve] [enable|disable <resource>]",
}

HELP = {
    "install": "Install a package and add it to settings.\n\nOptions:\n  -l, --local       Install project-locally (.pi/settings.json)\n"
    "  -a, --approve     Trust project-local files for this command\n  -na, --no-approve Ignore project-local files for this command\n\n"
    "Examples:\n  pi install git:github.com/user/repo@v1\n  pi install https://github.com/user/repo\n"
    "  pi install git:file:///path/to/repo\n  pi install pypi:pi-review-kit==1.0.0\n  pi install ./local/path\n",
    "remove": "Remove a package and its source from settings.\nAlias: pi uninstall <source> [-l]\n\nOptions:\n"
    "  -l, --local       Remove from project settings (.pi/settings.json)\n  -a, --approve     Trust project-local files for this command\n"
    "  -na, --no-approve Ignore project-local files for this command\n",
    "update": "Update installed packages.\n\nOptions:\n  --extensions            Update installed packages\n"
    "  --all                   Update installed packages (pi itself is updated with the tool that installed it)\n"
    "  --extension <source>    Update one package only\n  --models                Refresh model catalogs only\n"
    "  -a, --approve           Trust project-local files for this command\n"
    "  -na, --no-approve       Ignore project-local files for this command\n"
    "  --force                 Accepted as in Pi (which reinstalls itself with it); nothing to reinstall here\n",
    "list": "List installed packages from user and project settings.\n\nOptions:\n"
    "  -a, --approve      Trust project-local files for this command\n  -na, --no-approve  Ignore project-local files for this command\n",
    "config": "List the resources of installed packages and local folders, enabled or not,\n"
    "or enable/disable one (by its number in the list or its path).\n\nOptions:\n"
    "  -l, --local       Change project overrides (.pi/settings.json)\n  -a, --approve     Trust project-local files for this command\n"
    "  -na, --no-approve Ignore project-local files for this command\n",
}


@dataclass
class PackageCommand:
    command: str
    source: str | None = None
    local: bool = False
    trust_override: bool | None = None
    help: bool = False
    update_packages: bool = False
    update_self: bool = False
    update_models: bool = False
    """``pi update --models``: fetch the gateways' model catalogs, nothing else."""
    skipped_note: bool = False
    """Plain ``pi update``: say that packages were left alone."""
    problem: str | None = None
    unknown_option: bool = False
    """The problem is an option the command does not take (Pi then points at ``--help``)."""
    rest: list[str] = field(default_factory=list)


def _flag(parsed: PackageCommand, arg: str, allowed: bool) -> bool:
    if not allowed and parsed.problem is None:
        parsed.problem, parsed.unknown_option = f'Unknown option {arg} for "{parsed.command}".', True
    return allowed


def parse_package_command(argv: list[str]) -> PackageCommand | None:
    if not argv or argv[0] not in PACKAGE_COMMANDS:
        return None
    command = "remove" if argv[0] == "uninstall" else argv[0]
    parsed = PackageCommand(command)
    args = argv[1:]
    index = 0
    extension_source: str | None = None
    flags: set[str] = set()
    while index < len(args):
        arg = args[index]
        index += 1
        if arg in ("-h", "--help"):
            parsed.help = True
        elif arg in ("-l", "--local"):
            parsed.local = _flag(parsed, arg, command in ("install", "remove", "config"))
        elif arg in ("--self", "--extensions", "--all", "--force", "--models"):
            if _flag(parsed, arg, command == "update"):
                flags.add(arg)
        elif arg in ("-a", "--approve"):
            parsed.trust_override = True
        elif arg in ("-na", "--no-approve"):
            parsed.trust_override = False
        elif arg == "--extension":
            if _flag(parsed, arg, command == "update"):
                value = args[index] if index < len(args) else None
                if not value or value.startswith("-"):
                    parsed.problem = parsed.problem or f"Missing value for {arg}."
                else:
                    extension_source = value
                    index += 1
        elif arg.startswith("-"):
            _flag(parsed, arg, False)
        elif command == "config":
            parsed.rest.append(arg)
        elif parsed.source is None:
            parsed.source = arg
        else:
            parsed.problem = parsed.problem or f"Unexpected argument {arg}."
    if command == "update":
        _update_target(parsed, flags, extension_source)
    return parsed


def _update_target(parsed: PackageCommand, flags: set[str], extension_source: str | None) -> None:
    if "--models" in flags:
        if "--all" in flags:  # Pi checks --all first
            parsed.problem = (
                parsed.problem
                or "--all cannot be combined with --self, --extensions, --models, or --extension"
            )
        if flags & {"--self", "--extensions", "--all"} or extension_source is not None:
            parsed.problem = (
                parsed.problem
                or "--models cannot be combined with --self, --extensions, --all, or --extension"
            )
        if parsed.source is not None:
            parsed.problem = parsed.problem or "--models cannot be combined with a positional source"
        parsed.update_models = True
        return
    if extension_source is not None:
        if parsed.source is not None or flags & {"--self", "--extensions", "--all"}:
            parsed.problem = (
                parsed.problem
                or "--extension cannot be combined with --self, --extensions, --all or a source"
            )
        parsed.source, parsed.update_packages = extension_source, True
    elif parsed.source in ("self", "pi"):
        parsed.source = None
        parsed.update_self = True
        parsed.update_packages = "--extensions" in flags
    elif parsed.source is not None:
        if flags & {"--self", "--extensions", "--all"}:
            parsed.problem = parsed.problem or (
                "positional update targets cannot be combined with --self, --extensions, or --all"
            )
        parsed.update_packages = True
    else:
        parsed.update_packages = bool(flags & {"--extensions", "--all"})
        parsed.update_self = not flags & {"--extensions"} or "--all" in flags or "--self" in flags
        parsed.skipped_note = not flags
