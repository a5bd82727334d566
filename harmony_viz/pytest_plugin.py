"""The conformance suite as pytest tests: ``pytest --harmony-conformance --harmony-sglang ...`` (entry point ``pytest11``).

One test per case, engine and API, named ``family/name[engine-api]``, each reporting the status
``harmony-viz conformance`` gives the same input (``harmony_viz.conformance.run_suite``):

- **pass** passes; **fail** fails with its codes and each finding's message;
- **known** (listed in ``--harmony-known`` with the same codes) is a strict xfail, so a listed
  divergence that now passes (**fixed**) fails as ``XPASS(strict)`` (``--harmony-allow-fixed``:
  an XPASS that does not fail); listed with other codes it fails as any failure does;
- **not-served** is skipped with the reason; **error** (the engine could not be asked) is an
  error in setup with the one line the command prints.

So ``passed`` = pass, ``failed`` = fail + fixed, ``xfailed`` = known, ``skipped`` = not served,
``errors`` = error. Each engine's part of the suite runs once, when its first test runs, for the
cases still selected (``-k`` and ``--deselect`` apply); ``--collect-only`` asks no engine.

The engine options come from the engine registry: ``--harmony-`` + the command's flag (a URL for
a server, a switch for an engine that runs offline), and each engine's own ``conformance``
options the same way (``--harmony-sglang-python PY``). Without ``--harmony-conformance`` the
plugin does nothing; and pytest's start stays as it was: the registry is imported only when an
argument starts with ``--harmony`` (or for ``--help``), the suite and the runner only with
``--harmony-conformance``. Given no test paths, only the suite is collected (a project's own
tests are not, unless named), so it runs from any folder.

The suite, the runner and the words of a failure are the conformance package's
(``EngineRuns``, ``failure_text``); this module only turns them into pytest's items and outcomes.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

    from harmony_viz.conformance import Case, EngineRuns, Outcome, Target

GROUP = "harmony"
ENGINE_PREFIX = "harmony_engine_"  # dest of --harmony-<engine>: the engine's registry dest after it
OPTION_PREFIX = "harmony_option_"  # dest of an engine's own option: the command's dest after it


class KnownDivergence(Exception):
    """A listed divergence failing with its listed codes: what a known case's strict xfail expects."""


class Divergence(Exception):
    """A case that fails through an engine's API: the codes, and each finding of warning or above."""


# ---- options --------------------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    group = parser.getgroup(GROUP, "harmony-viz conformance (the suite as tests; `harmony-viz conformance --help` tells the statuses)")
    group.addoption("--harmony-conformance", action="store_true", dest="harmony_conformance",
                    help="collect the conformance suite: one test per case, engine and API, named family/name[engine-api]")
    group.addoption("--harmony-select", action="append", dest="harmony_select", metavar="PATTERN",
                    help="only the cases whose id matches (fnmatch, e.g. 'header/*'; repeatable)")
    group.addoption("--harmony-level", action="append", dest="harmony_level", choices=("must", "should", "may"),
                    help="only the cases at this level (repeatable); each test also has its level as a keyword (-k must)")
    group.addoption("--harmony-known", dest="harmony_known", metavar="FILE",
                    help="known divergences (JSON lines of case, engine, api, codes, reason, link): strict xfails")
    group.addoption("--harmony-suite", action="append", dest="harmony_suite", metavar="DIR|FILE",
                    help="a folder of cases, or a .json / .jsonl file (repeatable; default: the shipped suite)")
    group.addoption("--harmony-allow-fixed", action="store_true", dest="harmony_allow_fixed",
                    help="a known divergence that now passes is an XPASS, not a failure")
    group.addoption("--harmony-timeout", type=float, default=120.0, dest="harmony_timeout", metavar="S",
                    help="seconds per request (default 120)")
    config = pluginmanager.get_plugin("pytestconfig")
    ns = getattr(config, "known_args_namespace", None)
    if ns is not None and getattr(ns, "confcutdir", None) is not None:
        # Registered after pytest_load_initial_conftests began (a conftest's pytest_plugins): add them now.
        _add_engine_options(parser)


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> Iterator[None]:
    # After the initial conftests (one may register an engine), before the command line is parsed for good.
    result = yield
    if getattr(early_config.known_args_namespace, "help", False) or any(str(a).startswith("--harmony") for a in args):
        _add_engine_options(parser)
    return result


_ACTIONS = {argparse._StoreTrueAction: "store_true", argparse._StoreFalseAction: "store_false", argparse._StoreAction: "store",
            argparse._AppendAction: "append"}


def _add_engine_options(parser: pytest.Parser) -> None:
    """``--harmony-<engine>`` for each registered engine, and ``--harmony-<option>`` for each of their own ``conformance`` options."""
    from harmony_viz.servers import engines

    group = parser.getgroup(GROUP)
    have = {name for opt in group.options for name in opt.names()}
    for e in engines.engines():
        flag = "--harmony-" + e.flag[2:]
        if flag in have:
            continue
        if e.offline:
            group.addoption(flag, action="store_true", dest=ENGINE_PREFIX + e.dest, help=f"run the suite through {e.label}, offline (install: {e.install})")
        else:
            group.addoption(flag, dest=ENGINE_PREFIX + e.dest, metavar="URL", help=f"run the suite through a {e.label} server, e.g. `harmony-viz replay-server --engine {e.name}`")
    scratch = argparse.ArgumentParser(add_help=False)
    for e in engines.engines():
        e.add_arguments(scratch, "conformance")
    for action in scratch._actions:
        kind = _ACTIONS.get(type(action))
        names = ["--harmony-" + s[2:] for s in action.option_strings if s.startswith("--")]
        if kind is None or not names or any(n in have for n in names):
            continue
        attrs: dict[str, Any] = {"action": kind, "dest": OPTION_PREFIX + action.dest, "default": action.default, "help": action.help}
        if kind in ("store", "append"):
            attrs["metavar"] = action.metavar
            if action.type is not None:
                attrs["type"] = action.type
        group.addoption(*names, **attrs)


# ---- the run --------------------------------------------------------------------------------
class Suite:
    """The cases, the engines named, the known divergences (from the options); the run each engine's tests read."""

    def __init__(self, config: pytest.Config) -> None:
        from harmony_viz.conformance import EngineRuns, KnownError, NoCaseError, SuiteError, Target, load_cases, read_known
        from harmony_viz.servers import engines

        opts = vars(config.option)
        by_dest = {e.dest: e for e in engines.engines()}
        options = {k[len(OPTION_PREFIX):]: v for k, v in opts.items() if k.startswith(OPTION_PREFIX)}
        named = [(by_dest[k[len(ENGINE_PREFIX):]], v) for k, v in opts.items() if k.startswith(ENGINE_PREFIX) and v and k[len(ENGINE_PREFIX):] in by_dest]
        # the registry's order, as the command's
        self.targets: list[Target] = [Target(engine=e.name, url=None if e.offline else str(v), options=options) for e, v in named]
        if not self.targets:
            flags = ", ".join("--harmony-" + e.flag[2:] + ("" if e.offline else " URL") for e in engines.engines())
            raise pytest.UsageError(f"--harmony-conformance: name at least one engine: {flags}")
        self.known_path = config.getoption("harmony_known")
        try:
            self.cases: list[Case] = load_cases(config.getoption("harmony_suite"), config.getoption("harmony_select"),
                                                     config.getoption("harmony_level"))
            known = read_known(self.known_path) if self.known_path else {}
        except (SuiteError, NoCaseError, KnownError) as exc:
            raise pytest.UsageError(f"--harmony-conformance: {exc}") from None
        self.allow_fixed = bool(config.getoption("harmony_allow_fixed"))
        self.runs: EngineRuns = EngineRuns(self.cases, self.targets, known, float(config.getoption("harmony_timeout")))
        self.selected: set[tuple[str, str, str]] = set()  # the (case, engine, api) of the tests still selected

    def outcomes_of(self, engine: str) -> list[Outcome]:
        """The engine's outcomes behind the tests still selected (a case's other APIs may have been deselected)."""
        return [o for k, o in self.runs.outcomes.get(engine, {}).items() if k in self.selected]


SUITE = pytest.StashKey[Suite]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "harmony_level(level): a conformance case's level, must, should or may (issue 34)")
    if config.getoption("harmony_conformance", False):
        config.stash[SUITE] = Suite(config)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    suite = config.stash.get(SUITE, None)
    if suite is None:
        return None
    named = ", ".join(t.engine + (f" {t.url}" if t.url else " (offline)") for t in suite.targets)
    known = f"; known: {suite.known_path} ({len(suite.runs.known)})" if suite.known_path else ""
    return [f"harmony-viz conformance: {len(suite.cases)} cases through {named}{known}"]


# ---- collection -----------------------------------------------------------------------------
def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
    # No test paths given: the suite alone (testpaths or the current folder would add a project's tests).
    if SUITE in config.stash and getattr(getattr(config, "args_source", None), "name", "ARGS") != "ARGS":
        return True
    return None


@pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect filter the items
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    suite = config.stash.get(SUITE, None)
    if suite is None:
        return
    for target in suite.targets:
        engine = EngineSuite.from_parent(session, name=f"harmony-conformance[{target.engine}]", nodeid=f"harmony-conformance[{target.engine}]",
                                         suite=suite, target=target)
        items.extend(session.genitems(engine))


def pytest_collection_finish(session: pytest.Session) -> None:
    suite = session.config.stash.get(SUITE, None)
    if suite is None:
        return
    wanted: dict[str, set[str]] = {t.engine: set() for t in suite.targets}
    for item in session.items:
        if isinstance(item, CaseItem):
            wanted[item.engine].add(item.case.id)
            suite.selected.add((item.case.id, item.engine, item.api))
    suite.runs.wanted = wanted


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    suite = config.stash.get(SUITE, None)
    if suite is None or not any(suite.outcomes_of(t.engine) or t.engine in suite.runs.broken for t in suite.targets):
        return
    from harmony_viz.conformance import summary_line

    terminalreporter.section("harmony-viz conformance")
    for t in suite.targets:
        mine = suite.outcomes_of(t.engine)
        if mine:
            terminalreporter.line(f"{t.engine}: {summary_line(mine)}")
        elif t.engine in suite.runs.broken:
            terminalreporter.line(suite.runs.broken[t.engine])


class EngineSuite(pytest.Collector):
    """The suite through one engine: one item per case and API."""

    def __init__(self, *, suite: Suite, target: Target, **kw: Any) -> None:
        super().__init__(**kw)
        self.suite = suite
        self.target = target

    def collect(self) -> list[pytest.Item]:
        from harmony_viz.conformance import apis_of

        # The node id stays family/name[engine-api] (CI configs and --deselect lines name tests by it); the level is a marker and a keyword.
        out: list[pytest.Item] = []
        for case in self.suite.cases:
            for api in apis_of(case):
                name = f"{case.id}[{self.target.engine}-{api}]"
                item = CaseItem.from_parent(self, name=name, nodeid=name, case=case, engine=self.target.engine, api=api)
                item.add_marker(pytest.mark.harmony_level(case.level))
                known = self.suite.runs.known.get((case.id, self.target.engine, api))
                if known is not None:
                    reason = ("known divergence " + ", ".join(sorted(known.codes)) + (f": {known.reason}" if known.reason else "")
                              + (f" ({known.link})" if known.link else "") + f" [{known.kind}]")
                    item.add_marker(pytest.mark.xfail(reason=reason, strict=not self.suite.allow_fixed, raises=KnownDivergence))
                out.append(item)
        return out

    def setup(self) -> None:
        # The engine's part of the suite, once: at its first test (a later setup of the same engine finds it done).
        self.suite.runs.run(self.target.engine)


class CaseItem(pytest.Item):
    """One case through one engine's API; it reports the status the suite run gave it."""

    def __init__(self, *, case: Case, engine: str, api: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.case = case
        self.engine = engine
        self.api = api
        self.extra_keyword_matches.update({case.family, engine, api, case.level})  # -k must: the level selects too
        self.result: Outcome | None = None

    @property
    def suite(self) -> Suite:
        return self.config.stash[SUITE]

    def setup(self) -> None:
        got = self.suite.runs.outcome(self.engine, (self.case.id, self.engine, self.api))
        if isinstance(got, str):
            pytest.fail(got, pytrace=False)
        self.result = got
        self.user_properties += [("engine", self.engine), ("engine_version", got.engine_version or ""), ("api", self.api),
                                 ("case", self.case.id), ("status", got.status), ("level", self.case.level), ("rules", " ".join(self.case.rules))]
        if got.status == "error":
            pytest.fail(f"{self.engine} could not be asked: {got.reason}", pytrace=False)

    def runtest(self) -> None:
        o = self.result
        assert o is not None
        if o.status == "not-served":
            _skip(f"not served: {o.reason}" if o.reason else "not served")
        elif o.status == "known":
            raise KnownDivergence(f"known divergence: {', '.join(o.codes)}" + (f" ({o.reason})" if o.reason else ""))
        elif o.status == "fail":
            from harmony_viz.conformance import failure_text

            raise Divergence(failure_text(o))
        # pass; and fixed, which the strict xfail turns into XPASS(strict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | Any:
        if isinstance(excinfo.value, (Divergence, KnownDivergence)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        source, _, line = self.case.source.rpartition(":")
        if source and line.isdigit():
            return source, int(line) - 1, self.name
        return self.case.source, None, self.name


def _skip(reason: str) -> None:
    # Reported at the case's line, not this file's (as a skip mark is).
    try:
        raise pytest.skip.Exception(reason, _use_item_location=True)
    except TypeError:
        pytest.skip(reason)
