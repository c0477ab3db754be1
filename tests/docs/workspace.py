"""Where a README's blocks run: a folder of their own and a throw-away virtual environment.

The environment sees everything the test environment has installed (a `.pth` file adds its
site-packages, editable installs included), so a block runs against this checkout; but what a block
installs (`pip install ./smol-greeter`) goes into the throw-away environment only, never into the
shared one. `pip` there runs offline (`--no-index`, no build isolation: hatchling comes from the
test environment), as every test must.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from blocks import Block

# What pip writes for a console script (the guard matters: a team's agents re-import the main module).
SCRIPT_SHIM = """#!{python}
import sys
from {module} import {attr}
if __name__ == "__main__":
    sys.exit({attr}())
"""


@dataclass
class Workspace:
    """One README's folder: `files` written from `file=` blocks, `venv` the environment blocks run in."""

    root: Path

    @property
    def venv(self) -> Path:
        return self.root / ".venv"

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def prepare(self, blocks: list[Block]) -> None:
        """Write the document's `file=` blocks and make the environment (once per document)."""
        for block in blocks:
            if block.directive.file:
                target = self.root / block.directive.file
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.source, encoding="utf-8")
        if not self.python.exists():
            self._make_venv()

    def _make_venv(self) -> None:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.venv)], check=True)
        site = next(self.venv.glob("lib/python*/site-packages"))
        parent_site = sysconfig.get_paths()["purelib"]
        # `import` lines of a .pth file run at start-up: addsitedir also reads the editable installs' .pth files.
        (site / "_smol_docs_parent.pth").write_text(f"import site; site.addsitedir({parent_site!r})\n")
        bin_dir = self.venv / "bin"
        scripts = {"pip": ("pip._internal.cli.main", "main")}
        for dist in metadata.distributions():
            if (dist.metadata["Name"] or "").startswith("smol"):
                for entry in dist.entry_points.select(group="console_scripts"):
                    module, _, attr = entry.value.partition(":")
                    scripts[entry.name] = (module, attr)
        for name, (module, attr) in scripts.items():
            shim = bin_dir / name
            shim.write_text(SCRIPT_SHIM.format(python=self.python, module=module, attr=attr))
            shim.chmod(0o755)

    def env(self, extra: dict[str, str]) -> dict[str, str]:
        """The environment a block runs with: offline, this workspace's tools first on PATH."""
        env = {
            **os.environ,
            "PATH": os.pathsep.join([str(self.venv / "bin"), os.environ.get("PATH", "")]),
            "VIRTUAL_ENV": str(self.venv),
            "PIP_NO_INDEX": "1",
            "PIP_NO_BUILD_ISOLATION": "0",  # pip reads "0" of this one as "no isolation"
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PIP_QUIET": "1",
            "HF_HUB_OFFLINE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "GRADIO_ANALYTICS_ENABLED": "False",
            "PYTHONUNBUFFERED": "1",
            **extra,
        }
        env.pop("PYTHONPATH", None)
        return env

    def run(self, block: Block, extra_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """Run a Python or shell block as written, in this workspace, and return what it printed."""
        if block.language in {"python", "py"}:
            script = self.root / f"block_{block.line}.py"
            script.write_text(block.source, encoding="utf-8")
            command = [str(self.python), str(script)]
        else:
            script = self.root / f"block_{block.line}.sh"
            script.write_text("set -euo pipefail\n" + block.source, encoding="utf-8")
            command = ["bash", str(script)]
        return subprocess.run(
            command,
            cwd=self.root,
            env=self.env(extra_env),
            capture_output=True,
            text=True,
            timeout=block.directive.timeout,
            start_new_session=True,
        )
