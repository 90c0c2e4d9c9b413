from tests.tools.conftest import call, ctx, registry  # noqa: F401 - the dispatch fixtures
