"""``pi batch``: many headless agent runs, on one machine or a Ray cluster (``docs/batch.md``).

Each task runs as its own ``AgentSession`` with its own session file; results go to a JSONL
file, appended durably, so an interrupted batch picks up where it stopped.

    from pi_coding_agent.app.batch import BatchOptions, run_batch

    for result in run_batch([{"id": "a", "prompt": "..."}], BatchOptions(out="results.jsonl")):
        print(result.id, result.status, result.answer)
"""

from pi_coding_agent.app.batch._cli import main as batch_main
from pi_coding_agent.app.batch._execute import INTERRUPTED_MODES, InterruptedMode
from pi_coding_agent.app.batch._limits import ProviderLimit
from pi_coding_agent.app.batch._options import BatchError, BatchOptions, ProgressListener, RayOptions
from pi_coding_agent.app.batch._result import STATUSES, BatchResult, Status, TokenUsage
from pi_coding_agent.app.batch._results_file import ResultsFileError, load_results
from pi_coding_agent.app.batch._runner import BatchRun, run_batch
from pi_coding_agent.app.batch._stats import BatchStats
from pi_coding_agent.app.batch._task import BatchTask, Budget, TaskSpecError, parse_task
from pi_coding_agent.app.batch._task_file import TaskFileError, TaskProblem, read_task_file

__all__ = [
    "INTERRUPTED_MODES",
    "STATUSES",
    "BatchError",
    "BatchOptions",
    "BatchResult",
    "BatchRun",
    "BatchStats",
    "BatchTask",
    "Budget",
    "InterruptedMode",
    "ProgressListener",
    "ProviderLimit",
    "RayOptions",
    "ResultsFileError",
    "Status",
    "TaskFileError",
    "TaskProblem",
    "TaskSpecError",
    "TokenUsage",
    "batch_main",
    "load_results",
    "parse_task",
    "read_task_file",
    "run_batch",
]
