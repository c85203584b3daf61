"""constraints.txt pins every package the project installs, to versions pyproject.toml admits,
and the suite runs on those versions (``make setup`` installs them)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).parents[1]


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = Version(version)
    return pins


def _required() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    listed = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    return [Requirement(r) for r in listed]


def test_every_requirement_is_pinned_to_a_version_the_project_admits() -> None:
    pins = _pins()
    for requirement in _required():
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"{requirement.name} no está en constraints.txt"
        assert requirement.specifier.contains(pinned, prereleases=True), (requirement, pinned)


def test_what_a_requirement_needs_is_pinned_too() -> None:
    """Not only the packages pyproject.toml names: each one's own (installed) requirements."""
    pins = _pins()
    unpinned = set()
    for requirement in _required():
        for needed in metadata.requires(requirement.name) or []:
            found = Requirement(needed)
            marker = found.marker
            if marker is not None and not marker.evaluate({"extra": ""}):
                continue  # for an extra not asked for, or another platform
            if canonicalize_name(found.name) not in pins:
                unpinned.add(found.name)
    assert not unpinned, f"sin versión en constraints.txt: {sorted(unpinned)}"


def test_the_suite_runs_on_the_pinned_versions() -> None:
    installed: dict[str, Version] = {
        canonicalize_name(d.metadata["Name"]): Version(d.version) for d in metadata.distributions()
    }
    different = {
        name: (str(pinned), str(installed[name]))
        for name, pinned in _pins().items()
        if name in installed and installed[name] != pinned
    }
    missing = sorted(set(_pins()) - set(installed))
    assert not different, f"instalado distinto de constraints.txt (fijado, instalado): {different}"
    assert not missing, f"fijado y no instalado: {missing}"
