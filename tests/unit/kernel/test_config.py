"""The configuration: read once, from the environment (then the dashboard's secrets, then defaults), checked
with errors that name the variable, shown with passwords masked, and read nowhere else."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

import docs_helpers
import graphrag
from app_helpers import ROOT, app, closed_port, ok, texts
from graphrag.cli import main
from graphrag.config import DEFAULT_STORE, Config, ConfigError, mask, settings_doc
from graphrag.ingest.pipeline import Ingestor
from graphrag.store import Store

pytestmark = pytest.mark.unit

PG = "postgresql+psycopg://graphrag:hunter2@db.internal:5432/graphrag"


def rows(cfg: Config) -> dict[str, tuple[str, str]]:
    return {name: (value, source) for name, value, source in cfg.describe()}


def test_nothing_set_gives_the_documented_defaults() -> None:
    cfg = Config.from_env({})
    assert cfg == Config()
    assert (cfg.store, cfg.sample, cfg.reviewer, cfg.mode) == (str(DEFAULT_STORE), True, "", "local")
    assert (cfg.access_policy, cfg.ingest_roots, cfg.ollama_host, cfg.torch_threads) == (
        Path("access.toml"), None, None, None)
    assert (cfg.malloc_tune, cfg.ingest_overlap, cfg.store_retry_s) == (True, False, 15.0)
    assert {source for _, source in rows(cfg).values()} == {"default"}
    assert rows(cfg)["OLLAMA_HOST"][0] == "(http://127.0.0.1:11434)"  # what "unset" means, shown


def test_values_are_parsed() -> None:
    cfg = Config.from_env({"GRAPHRAG_SAMPLE": "0", "GRAPHRAG_TORCH_THREADS": " 2 ", "GRAPHRAG_MODE": "Team",
                           "GRAPHRAG_STORE_RETRY_S": "0.5", "GRAPHRAG_INGEST_OVERLAP": "true",
                           "GRAPHRAG_MALLOC_TUNE": "off", "GRAPHRAG_INGEST_ROOTS": f"/a{os.pathsep}/b",
                           "GRAPHRAG_REVIEWER": "ada", "GRAPHRAG_EMBED_MODEL": "/models/minilm"})
    assert (cfg.sample, cfg.torch_threads, cfg.mode, cfg.store_retry_s) == (False, 2, "team", 0.5)
    assert (cfg.ingest_overlap, cfg.malloc_tune, cfg.reviewer) == (True, False, "ada")
    assert cfg.embed_model == Path("/models/minilm")
    assert cfg.ingest_roots == (Path("/a"), Path("/b"))
    assert rows(cfg)["GRAPHRAG_TORCH_THREADS"] == ("2", "environment")


def test_a_bad_value_is_one_error_naming_each_variable() -> None:
    """Before: GRAPHRAG_TORCH_THREADS=abc was a ValueError traceback from inside the model's loading."""
    with pytest.raises(ConfigError) as err:
        Config.from_env({"GRAPHRAG_TORCH_THREADS": "abc", "GRAPHRAG_STORE_RETRY_S": "-1", "GRAPHRAG_SAMPLE": "maybe"})
    assert len(err.value.problems) == 3
    text = str(err.value)
    assert "GRAPHRAG_TORCH_THREADS is 'abc' (from the environment): it must be a whole number" in text
    assert "GRAPHRAG_STORE_RETRY_S" in text and "GRAPHRAG_SAMPLE is 'maybe'" in text
    for bad in ("0", "1.5", "nan"):
        with pytest.raises(ConfigError, match="GRAPHRAG_TORCH_THREADS"):
            Config.from_env({"GRAPHRAG_TORCH_THREADS": bad})
    with pytest.raises(ConfigError, match="GRAPHRAG_STORE_RETRY_S"):
        Config.from_env({"GRAPHRAG_STORE_RETRY_S": "nan"})


def test_the_environment_wins_over_the_secrets_which_win_over_the_default() -> None:
    secrets = {"GRAPHRAG_STORE": PG, "GRAPHRAG_MODE": "team", "GRAPHRAG_TORCH_THREADS": 4, "GRAPHRAG_SAMPLE": False}
    from_secrets = Config.from_env({}, secrets)
    assert (from_secrets.store, from_secrets.source("store")) == (PG, "secrets")
    assert (from_secrets.mode, from_secrets.torch_threads, from_secrets.sample) == ("team", 4, False)  # TOML types
    assert from_secrets.source("reviewer") == "default"
    # a running Streamlit server copies the secrets into the environment: the value is still the secrets'
    assert Config.from_env({"GRAPHRAG_STORE": PG}, secrets).source("store") == "secrets"
    from_env = Config.from_env({"GRAPHRAG_STORE": "here.db", "GRAPHRAG_MODE": ""}, secrets)
    assert (from_env.store, from_env.source("store")) == ("here.db", "environment")
    assert from_env.mode == "team"  # an empty variable counts as unset
    assert Config.from_env({"GRAPHRAG_INGEST_ROOTS": ""}, {"GRAPHRAG_INGEST_ROOTS": ["/x", "/y"]}).ingest_roots == (
        Path("/x"), Path("/y"))  # a TOML array of folders
    flagged = from_env.override(store="flag.db", ollama_host=None)
    assert (flagged.store, flagged.source("store"), flagged.source("ollama_host")) == ("flag.db", "flag", "default")


def test_a_password_is_never_shown() -> None:
    cfg = Config.from_env({"GRAPHRAG_STORE": PG, "OLLAMA_HOST": "https://bob:s3cret@ollama.internal"})
    shown = " ".join(f"{n} {v} {s}" for n, v, s in cfg.describe())
    assert "postgresql+psycopg://graphrag:***@db.internal:5432/graphrag" in shown
    assert "https://bob:***@ollama.internal" in shown
    assert "hunter2" not in shown and "s3cret" not in shown
    assert cfg.store == PG  # the value itself is intact
    assert mask("data/graphrag.db") == "data/graphrag.db"
    assert mask("postgresql+psycopg://graphrag@db/g") == "postgresql+psycopg://graphrag@db/g"  # no password
    with pytest.raises(ConfigError) as err:
        Config.from_env({"GRAPHRAG_STORE_RETRY_S": "postgresql://u:hunter2@h/db"})  # pasted into the wrong one
    assert "hunter2" not in str(err.value)


def test_the_library_takes_its_settings_from_its_caller(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as s:
        assert s.database.retry_s == Config().store_retry_s == 15.0
    with Store(tmp_path / "s.db", retry_s=0.25) as s:
        assert s.database.retry_s == 0.25
        ingestor = Ingestor(s, extractor=None, config=Config(ingest_overlap=True, torch_threads=3))  # type: ignore[arg-type]
        assert ingestor.overlap and ingestor.encode_threads is None  # set threads are kept as they are
        default = Ingestor(s, extractor=None)  # type: ignore[arg-type]
        assert not default.overlap and default.encode_threads in (1, 2)
    with graphrag.open(tmp_path / "w.db", config=Config(store_retry_s=0.5)) as ws:
        assert ws.store.database.retry_s == 0.5 and ws.store.url.path == tmp_path / "w.db"


def test_a_bad_setting_stops_a_command_before_it_runs(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPHRAG_TORCH_THREADS", "abc")  # the command line's interface: its environment, read once
    assert main(["export"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: GRAPHRAG_TORCH_THREADS is 'abc'") and "Traceback" not in err


# --- the one place ---------------------------------------------------------------------------------------------

# Uses of the environment that are not configuration, each with its reason.
ALLOWED = {
    ("graphrag/config.py", "read"): "the one place configuration is read",
    ("graphrag/language/embed.py", "setdefault"): "tells the transformers library to stay offline; reads no setting",
    ("graphrag/__init__.py", "setdefault"): "tells ONNX Runtime to send no telemetry (its command-line parse crashed "
                                             "on a long question); reads no setting",
    ("graphrag/serve.py", "copy"): "hands this environment, with a few settings changed, to the dashboard it starts",
    ("graphrag/ingest/readers/picture_child.py", "copy"): "hands this environment, with one thread for BLAS, to the "
                                                          "bounded child that decodes pictures",
}


def environment_uses(source: str) -> list[tuple[int, str]]:
    """(line, kind) of every use of os.environ / os.getenv: "setdefault" (a write), "copy" ({**os.environ}),
    else "read"."""
    if "environ" not in source and "getenv" not in source:  # no use without the name: skip the parse (most files)
        return []
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            uses += [(node.lineno, "read") for a in node.names if a.name in ("environ", "getenv", "getenvb")]
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
                and node.attr in ("environ", "environb", "getenv", "getenvb")):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.attr == "setdefault":
            uses.append((node.lineno, "setdefault"))
        elif isinstance(parent, ast.Dict) and None in parent.keys and node in parent.values:
            uses.append((node.lineno, "copy"))
        else:
            uses.append((node.lineno, "read"))
    return sorted(uses)


def test_the_detector_sees_each_way_of_reading_the_environment() -> None:
    reads = environment_uses("import os\nfrom os import getenv\na = os.environ['A']\nb = os.environ.get('B')\n"
                             "c = os.getenv('C')\nd = 'D' in os.environ\n")
    assert [line for line, kind in reads if kind == "read"] == [2, 3, 4, 5, 6]
    assert environment_uses("import os\nos.environ.setdefault('X', '1')\ne = {**os.environ}\n") == [
        (2, "setdefault"), (3, "copy")]


def test_only_the_config_module_reads_the_environment() -> None:
    files = [ROOT / "app.py", *(p for d in ("graphrag", "dashboard", "views") for p in (ROOT / d).rglob("*.py"))]
    assert len(files) > 50
    found, seen = [], set()
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for line, kind in environment_uses(path.read_text(encoding="utf-8")):
            seen.add((rel, kind))
            if (rel, kind) not in ALLOWED:
                found.append(f"{rel}:{line} ({kind})")
    assert found == [], "read the setting in graphrag/config.py and pass it down: " + ", ".join(found)
    assert ("graphrag/config.py", "read") in seen  # the scan sees the one allowed reader, so it would see others


# Where the settings are read from the environment (``Config.from_env``, defined in graphrag/config.py): once, where a
# process (or a command) starts, each with its reason. Everything else takes a ``Config``, or the values it needs,
# from its caller.
READS_SETTINGS = {
    "graphrag/__init__.py": "graphrag.open, and the functions of the release before, when a script gives no Config",
    "graphrag/cli/__init__.py": "the command line: once per command, for its workspace",
    "dashboard/resources.py": "the dashboard: once per server process, for its workspace",
    "dashboard/host_guard.py": "the server's HTTP guard, which decides before any page's script runs (no workspace "
                               "there) and must not keep a setting the pages would refuse",
}


def settings_reads(source: str) -> list[int]:
    """The lines of every call of ``.from_env(...)`` in ``source``."""
    if "from_env(" not in source:
        return []
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr == "from_env"]


def test_the_settings_are_read_only_where_a_process_starts() -> None:
    assert settings_reads("Config.from_env()\nx = Config.from_env({})\n") == [1, 2]
    files = [ROOT / "app.py", *(p for d in ("graphrag", "dashboard", "views") for p in (ROOT / d).rglob("*.py"))]
    found = {p.relative_to(ROOT).as_posix() for p in files if settings_reads(p.read_text(encoding="utf-8"))}
    assert found == set(READS_SETTINGS), "take a Config from the caller instead of reading the environment"


def test_every_setting_is_documented_and_named_in_the_readme() -> None:
    """A newcomer finds every setting in one place: the README's Configuration section (with its Backends)."""
    section = docs_helpers.section((ROOT / "README.md").read_text(encoding="utf-8"), "Configuration")
    documented = settings_doc()
    assert len(documented) == len(Config().describe())
    for name, _default, doc in documented:
        assert doc and f"`{name}`" in section, name


def test_the_dashboard_does_not_import_the_command_line() -> None:
    for path in [ROOT / "app.py", *(ROOT / "dashboard").glob("*.py"), *(ROOT / "views").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not any(m and m.startswith("graphrag.cli") for m in modules), path


# `graphrag bench` and `graphrag eval`: thin commands that import the lab inside the command function, when run.
LAB_COMMANDS = ("graphrag/cli/bench.py", "graphrag/cli/evaluate.py")


def lab_imports(source: str) -> list[tuple[int, bool]]:
    """(line, at module level) of each import of the top-level ``lab`` package in ``source``."""
    if not re.search(r"\blab\b", source):  # no import of it without the word: skip the parse (most files)
        return []
    tree = ast.parse(source)
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
              for n in ast.walk(f)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        if any(m == "lab" or m.startswith("lab.") for m in names):
            found.append((node.lineno, id(node) not in inside))
    return found


def test_the_product_never_imports_the_lab() -> None:
    files = [ROOT / "app.py", *(p for d in ("graphrag", "dashboard", "views") for p in (ROOT / d).rglob("*.py"))]
    found, lazy = [], set()
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for line, top in lab_imports(path.read_text(encoding="utf-8")):
            if rel in LAB_COMMANDS and not top:
                lazy.add(rel)
            else:
                found.append(f"{rel}:{line}")
    assert found == [], "the product imports the lab (move what it needs into graphrag/): " + ", ".join(found)
    assert lazy == set(LAB_COMMANDS)  # the scan sees the two commands' imports, so it would see others


def test_the_lab_scan_tells_a_lazy_import_from_a_module_level_one() -> None:
    code = "import lab.bench\nfrom lab import bench\nfrom labels import x\nfrom .lab import y\n" \
           "def run():\n    from lab.evaluate.support import cli_eval_support\n"
    assert lab_imports(code) == [(1, True), (2, True), (6, False)]


# --- the dashboard ---------------------------------------------------------------------------------------------

def test_the_sidebar_shows_each_setting_and_where_it_came_from(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    at = app(monkeypatch, tmp_path / "s.db")
    port = closed_port()
    monkeypatch.setenv("OLLAMA_HOST", f"http://bob:s3cret@127.0.0.1:{port}")
    at.secrets["GRAPHRAG_ACCESS_POLICY"] = "/srv/graphrag/access.toml"
    at = ok(at)
    panel = next(c for c in texts(at.sidebar.caption) if "GRAPHRAG_STORE" in c).replace("\\", "")
    entries = panel.split("\n\n")  # one per setting: its variable and source, then its value
    assert len(entries) == len(Config().describe())
    assert f"`GRAPHRAG_STORE` · *environment*  \n{tmp_path / 's.db'}" in entries
    assert "`GRAPHRAG_ACCESS_POLICY` · *secrets*  \n/srv/graphrag/access.toml" in entries
    assert "`GRAPHRAG_STORE_RETRY_S` · *default*  \n15.0" in entries
    assert f"`OLLAMA_HOST` · *environment*  \nhttp://bob:***@127.0.0.1:{port}" in entries
    everything = " ".join(texts([*at.sidebar.caption, *at.sidebar.markdown]))
    assert "s3cret" not in everything


def test_a_bad_setting_serves_nothing_and_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    at = app(monkeypatch, tmp_path / "s.db")
    monkeypatch.setenv("GRAPHRAG_MODE", "tem")  # a typo must not leave the dashboard open in local mode
    at = ok(at)
    shown = " ".join(str(e.value) for e in at.error).replace("\\", "")
    assert "serves nothing" in shown and "GRAPHRAG_MODE is 'tem'" in shown
    assert not at.sidebar.caption and not (tmp_path / "s.db").exists()
