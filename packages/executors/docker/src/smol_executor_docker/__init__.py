"""smol-executor-docker: run agents' code in a hardened Docker container (`executor_type="docker"`).

The `docker` SDK is imported only when an executor is built or an image is made, and this package's
own modules when a name is first read: plugin discovery (every `smolagent --help`) imports the
package to find its `_plugin.py`, and pays nothing more.
"""

from typing import TYPE_CHECKING

from smol_core.plugin_api import lazy_exports

_EXPORTS = {"DEFAULT_IMAGE": "smol_executor_docker.engine", "DockerExecutor": "smol_executor_docker.executor"}
__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)
__version__ = "0.1.0"

if TYPE_CHECKING:
    from smol_executor_docker.engine import DEFAULT_IMAGE as DEFAULT_IMAGE
    from smol_executor_docker.executor import DockerExecutor as DockerExecutor
