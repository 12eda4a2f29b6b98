// Follows a report's generation. The event stream (GET /sse/{id}, authenticated by the session
// cookie) is the normal path; while it errors (not reachable, refused, reconnecting) the report is
// polled every second instead, and polling stops again as soon as the stream delivers.
import * as api from './api.js'

const POLL_MS = 1000

export function watchReport (reportId, { onStatus, onDone, onTransport = () => {} }) {
  let closed = false
  let pollTimer = null
  let source = null

  const finish = (result) => {
    if (closed) return
    closed = true
    source?.close()
    clearTimeout(pollTimer)
    onDone(result)
  }

  const poll = async () => {
    pollTimer = null
    if (closed) return
    try {
      const report = await api.getReport(reportId)
      if (closed) return
      onStatus({ reportId, status: report.status, progress: report.progress, stage: null })
      if (report.status === 'ready' || report.status === 'failed' || report.status === 'draft') return finish({ reportId, status: report.status })
    } catch (err) {
      if (err.status === 401 || err.status === 403 || err.status === 404) return finish({ reportId, status: 'failed', error: err.message })
    }
    if (!closed && pollTimer === null && polling) pollTimer = setTimeout(poll, POLL_MS)
  }
  let polling = false
  const startPolling = () => {
    if (polling || closed) return
    polling = true
    onTransport('poll')
    poll()
  }
  const stopPolling = () => {
    polling = false
    clearTimeout(pollTimer)
    pollTimer = null
  }

  if (typeof EventSource === 'function') {
    source = new EventSource(api.streamUrl(reportId))
    source.addEventListener('status', (event) => {
      stopPolling()
      onTransport('sse')
      onStatus(JSON.parse(event.data))
    })
    source.addEventListener('done', (event) => {
      onTransport('sse')
      finish(JSON.parse(event.data))
    })
    // The service ended the stream for good (signed out, report deleted, token expired): an
    // EventSource would reconnect, so close it; polling carries on, and its 401 or 404 says the rest.
    source.addEventListener('end', (event) => {
      source.close()
      if (JSON.parse(event.data).reason !== 'report-deleted') startPolling()
    })
    source.addEventListener('error', () => {
      if (closed) return
      // CLOSED: refused for good (no route, 401, 204 when already finished); CONNECTING: it retries
      if (source.readyState === EventSource.CLOSED) source.close()
      startPolling()
    })
  } else {
    startPolling()
  }

  return () => {
    closed = true
    source?.close()
    clearTimeout(pollTimer)
  }
}
