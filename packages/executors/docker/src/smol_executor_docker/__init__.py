"""smol-executor-docker: run agents' code in a hardened Docker container (`executor_type="docker"`).

The `docker` SDK is imported only when an executor is built or an image is made.
"""

from smol_executor_docker.engine import DEFAULT_IMAGE
from smol_executor_docker.executor import DockerExecutor

__all__ = ["DEFAULT_IMAGE", "DockerExecutor"]
__version__ = "0.1.0"
