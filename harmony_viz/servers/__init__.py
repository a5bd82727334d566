"""The server lens: replay token streams through a real vLLM, capture live servers, compare with our projection.

Modules, one job each:
- ``vllm_script``: the vLLM logits processor that forces a request's ``vllm_xargs.script``;
- ``_launch``: ``harmony-viz vllm-replay-server`` (start vLLM on the tiny model, stop it cleanly);
- ``_client``: requests to any OpenAI-compatible server through the official ``openai`` client;
- ``_answer``: a server answer (object, chunks or events) reduced to what is compared;
- ``_compare``: server answer vs our projection, as discrepancy records;
- ``_check``: ``server-check`` for streams and captures; ``_capture``: ``capture``;
- ``_view``: the server tab's data; ``lens``: the Python face (tables, shipped data, a replay server).

This file imports nothing: a vLLM venv loads ``harmony_viz.servers.vllm_script`` from the
package folder on ``PYTHONPATH``, without the project's dependencies installed.
"""
