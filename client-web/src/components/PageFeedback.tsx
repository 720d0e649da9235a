/** A page's last error (an alert) and last notice (a status line), when there are any. */
export function PageFeedback({ error, notice, noticeTestId }: { error: string | null; notice: string | null; noticeTestId: string }) {
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && (
        <p className="notice" role="status" data-testid={noticeTestId}>
          {notice}
        </p>
      )}
    </>
  );
}
