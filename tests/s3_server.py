"""A local S3 endpoint for the remote-source tests: moto's threaded server with one
bucket, test credentials in the environment while it runs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import pytest


@contextmanager
def moto_s3(objects: Mapping[str, bytes], bucket: str = "lab",
            set_endpoint_env: bool = False) -> Iterator[str]:
    """Serve ``objects`` (key -> bytes) from ``bucket`` on 127.0.0.1; yields the endpoint URL.

    ``set_endpoint_env``: also set ``AWS_ENDPOINT_URL`` to it while the server runs.
    Skips the test when moto or boto3 (the ``remote`` test extra) is not installed.
    """
    moto_server = pytest.importorskip("moto.server")
    boto3 = pytest.importorskip("boto3")
    env = pytest.MonkeyPatch()
    for key, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                       ("AWS_DEFAULT_REGION", "us-east-1")):
        env.setenv(key, value)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        if set_endpoint_env:
            env.setenv("AWS_ENDPOINT_URL", endpoint)
        s3 = boto3.client("s3", endpoint_url=endpoint)
        s3.create_bucket(Bucket=bucket)
        for key, body in objects.items():
            s3.put_object(Bucket=bucket, Key=key, Body=body)
        yield endpoint
    finally:
        server.stop()
        env.undo()
