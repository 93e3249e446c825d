"""One module per oracle subcommand. Each exposes ``run(request) -> result``, an exception
class ``Rejected`` (with a ``name`` attribute: Pi's error name) for inputs the implementation
refuses, and optionally ``normalize(output) -> output`` applied to both Pi's and our answer
before they are compared (for differences that are documented, e.g. volatile values).
"""
