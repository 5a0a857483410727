"""The configuration file: validated at start-up, documented by its schema, relative to its folder."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from pipelines.config import ConfigError, config_json_schema, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_config_loads_and_matches_its_schema():
    config = load_config(ROOT / "trace2task.yaml")
    assert config.path(config.drop) == ROOT / "demo" / "drop"
    jsonschema.validate(yaml.safe_load((ROOT / "trace2task.yaml").read_text()), config_json_schema())


def test_published_schema_is_current():
    published = json.loads((ROOT / "docs" / "schemas" / "trace2task-config.schema.json").read_text())
    assert published == config_json_schema()


@pytest.mark.parametrize(
    "text, key",
    [
        ("drop: d\nstate: {location: x, mapping: m.yaml}\nscrub: {score_threshold: lots}\n", "scrub.score_threshold"),
        ("drop: d\n", "state"),
        ("drop: d\nstate: {location: x, mapping: m.yaml}\ntelemetry: {exporter: carrier-pigeon}\n", "telemetry.exporter"),
    ],
)
def test_a_bad_setting_is_named(tmp_path, text, key):
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(path)


def test_relative_sqlite_urls_start_at_the_config_folder(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("drop: d\nstate: {location: 'sqlite:///db/shop.db', mapping: m.yaml}\n")
    config = load_config(path)
    assert config.state_location() == f"sqlite:///{tmp_path}/db/shop.db"
    assert config.sqlalchemy_url(config.store.url) == f"sqlite:///{tmp_path}/.trace2task/store.db"


def test_an_unknown_domain_is_named_when_the_file_loads(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("drop: d\nstate: {location: x, mapping: m.yaml}\ntaskgen: {domain: banking}\n")
    with pytest.raises(ConfigError, match=r"'taskgen.domain'.*unknown domain 'banking'; known: retail"):
        load_config(path)


def test_taskgen_files_start_at_the_config_folder_and_must_exist(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("drop: d\nstate: {location: x, mapping: m.yaml}\ntaskgen: {taxonomy_path: tax.yaml}\n")
    with pytest.raises(ConfigError, match=r"'taskgen.taxonomy_path': no such file .*tax.yaml"):
        load_config(path)
    (tmp_path / "tax.yaml").write_text("intents: []\n")
    assert load_config(path).taskgen.taxonomy_path == tmp_path / "tax.yaml"


def test_secret_from_environment_then_file(tmp_path, monkeypatch):
    path = tmp_path / "t.yaml"
    path.write_text("drop: d\nstate: {location: x, mapping: m.yaml}\nsecret: {env: T2T_TEST_SECRET, file: s.txt}\n")
    config = load_config(path)
    monkeypatch.delenv("T2T_TEST_SECRET", raising=False)
    with pytest.raises(ConfigError, match="no pseudonym secret"):
        config.read_secret()
    secret_file = tmp_path / "s.txt"
    secret_file.write_text("from-file-" + "f" * 32 + "\n")
    secret_file.chmod(0o600)
    assert config.read_secret() == b"from-file-" + b"f" * 32
    monkeypatch.setenv("T2T_TEST_SECRET", "from-env-" + "e" * 32)
    assert config.read_secret() == b"from-env-" + b"e" * 32


def test_a_secret_others_can_read_or_too_short_is_refused_saying_how_to_make_one(tmp_path, monkeypatch):
    path = tmp_path / "t.yaml"
    path.write_text("drop: d\nstate: {location: x, mapping: m.yaml}\nsecret: {env: T2T_TEST_SECRET, file: s.txt}\n")
    config = load_config(path)
    monkeypatch.delenv("T2T_TEST_SECRET", raising=False)
    secret_file = tmp_path / "s.txt"
    secret_file.write_text("a" * 64 + "\n")
    secret_file.chmod(0o644)
    with pytest.raises(ConfigError, match="readable by others.*chmod 600") as readable:
        config.read_secret()
    secret_file.chmod(0o600)
    assert config.read_secret() == b"a" * 64
    secret_file.write_text("short\n")
    with pytest.raises(ConfigError, match="5 bytes, at least 32.*token_hex") as short:
        config.read_secret()
    monkeypatch.setenv("T2T_TEST_SECRET", "also-short")
    with pytest.raises(ConfigError, match="T2T_TEST_SECRET is 10 bytes"):
        config.read_secret()
    assert "\n" not in str(readable.value) and "\n" not in str(short.value)
