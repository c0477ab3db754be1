"""After each step, the model sees the page: a screenshot on the step, and the current URL.

The screenshot is decoded like any image from outside (PNG only, within a pixel budget: a page can
make the browser render anything), never of a page the address policy refuses, and only the latest two steps keep theirs, so a long browse does
not send dozens of images with every model call.
"""

from __future__ import annotations

from typing import Any

from smol_core.plugin_api import ActionStep
from smol_ui_webagent.browser import BrowserSession

KEEP_SCREENSHOTS = 2  # the steps, counting back from the latest, whose screenshots the model sees


class ScreenshotCallback:
    """A step callback (`step_callbacks=[ScreenshotCallback(session)]`)."""

    def __init__(self, session: BrowserSession, keep: int = KEEP_SCREENSHOTS) -> None:
        self.session = session
        self.keep = keep

    def __call__(self, memory_step: ActionStep, agent: Any = None) -> None:
        if self.session.driver is None:
            return
        from smol_core.plugin_api import decode_image

        if agent is not None:
            for step in agent.memory.steps:
                if isinstance(step, ActionStep) and step.step_number <= memory_step.step_number - self.keep:
                    step.observations_images = None
        from smol_ui_webagent.tools import landing_refusal

        try:
            url = self.session.current_url
            refused = landing_refusal(self.session, url)
            if refused is not None:  # the page went somewhere refused on its own: never show it
                self.session.driver.get("about:blank")
                memory_step.observations = (
                    (memory_step.observations or "") + f"\nThe browser left {url}: {refused}."
                ).lstrip()
            image = decode_image(self.session.screenshot_png())
        except Exception as error:  # a browser that died mid-run: say so instead of failing the step
            note = f"No screenshot: {type(error).__name__}: {error}"
        else:
            memory_step.observations_images = [image]
            note = f"Current url: {self.session.current_url}"
        memory_step.observations = (
            note if memory_step.observations is None else f"{memory_step.observations}\n{note}"
        )
