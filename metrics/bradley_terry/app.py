"""The Space's widget: evaluate's Gradio launcher for the module beside this file.

The module is loaded by its file path: a bare name would be looked up under the Hub's
evaluate-metric organisation. So the app runs the same in the Space and in a copy of the folder.
"""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

launch_gradio_widget(
    evaluate.load(str(Path(__file__).with_name("bradley_terry.py")), module_type="measurement")
)
