"""Gymnasium environments of livesim, registered on `import livesim`."""

from __future__ import annotations

import warnings

from gymnasium.envs.registration import register, registry

# v1: the same envs with the v1 world generator (bulk draws, cheap resets); v0's worlds stay byte for byte.
ENV_IDS = ("LiveStream-v0", "LiveStreamQA-v0", "LiveStream-v1", "LiveStreamQA-v1")


def register_envs() -> None:
    """Register the livesim environments with Gymnasium (idempotent).

    v0 and v1 are both supported (v0: the byte-stable worlds of the goldens; v1: the fast world generator), so
    Gymnasium's "is out of date" warning for our v0 ids is silenced; other envs' warnings are untouched.
    """
    warnings.filterwarnings("ignore", message=r".*The environment LiveStream(QA)?-v0 is out of date",
                            category=DeprecationWarning)
    if "LiveStream-v0" not in registry:
        register(id="LiveStream-v0", entry_point="livesim.envs.live_stream:LiveStreamEnv",
                 max_episode_steps=2000, disable_env_checker=False)
    if "LiveStreamQA-v0" not in registry:
        register(id="LiveStreamQA-v0", entry_point="livesim.envs.live_stream:LiveStreamQAEnv",
                 max_episode_steps=32)
    if "LiveStream-v1" not in registry:
        register(id="LiveStream-v1", entry_point="livesim.envs.live_stream:LiveStreamEnv",
                 max_episode_steps=2000, kwargs={"world": 1})
    if "LiveStreamQA-v1" not in registry:
        register(id="LiveStreamQA-v1", entry_point="livesim.envs.live_stream:LiveStreamQAEnv",
                 max_episode_steps=32, kwargs={"world": 1})


register_envs()
