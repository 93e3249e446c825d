// Shared by ours and Pi 1.6 in test_pi16_overflow_recovery.py: each session_compact_failed event
// an extension sees is recorded as a custom entry (so RPC clients see it as entry_appended).
export default function (pi: any) {
  pi.on("session_compact_failed", async (event: any) => {
    pi.appendEntry("compact-failed", {
      reason: event.reason,
      errorMessage: event.errorMessage ?? null,
      aborted: event.aborted,
      willRetry: event.willRetry,
    });
  });
}
