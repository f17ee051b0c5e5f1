"""A minimal PEP 517 build backend: the pure-Python wheel of the package beside it, with
its ``[project.entry-points]`` as ``entry_points.txt``.  It exists so the outside-package
test can ``pip install`` this distribution offline, with ``--no-build-isolation``, where
no build tool (setuptools with wheel, hatchling, flit) may be installed."""

from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).parent
PACKAGE_FILES = ("*.py", "*.yaml", "*.txt")


def _project() -> dict[str, object]:
    project: dict[str, object] = tomllib.loads(
        (HERE / "pyproject.toml").read_text(encoding="utf-8")
    )["project"]
    return project


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(
    wheel_directory: str,
    config_settings: object = None,
    metadata_directory: str | None = None,
) -> str:
    project = _project()
    name, version = str(project["name"]), str(project["version"])
    stem = name.replace("-", "_")
    info = f"{stem}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for pattern in PACKAGE_FILES:
        for path in sorted((HERE / stem).rglob(pattern)):
            if "__pycache__" not in path.parts:
                files[path.relative_to(HERE).as_posix()] = path.read_bytes()
    groups = project.get("entry-points", {})
    assert isinstance(groups, dict)
    entry_points = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
        for group, entries in groups.items()
    )
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: wheel_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{info}/entry_points.txt"] = entry_points.encode()
    record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w") as archive:
        for file_name, data in files.items():
            archive.writestr(file_name, data)
    return wheel
