// "Download JSON / CSV": the export is fetched with the Bearer token like every API call (a plain
// link would carry no token), then handed to the browser as a file from a blob.
import * as api from '../api.js'
import { errorText, h } from '../dom.js'

export function exportActions (reportId, message) {
  const button = (format, label, part) => {
    const b = h('button', { type: 'button', class: 'button small', id: `export-${format}${part ? `-${part}` : ''}`, dataset: { format } }, label)
    b.addEventListener('click', async () => {
      b.disabled = true
      message.textContent = ''
      try {
        const { blob, filename } = await api.exportReport(reportId, format, part)
        const url = URL.createObjectURL(blob)
        const a = h('a', { href: url, download: filename, hidden: true })
        document.body.append(a)
        a.click()
        a.remove()
        // the download has its own copy once started
        setTimeout(() => URL.revokeObjectURL(url), 10_000)
      } catch (err) {
        message.textContent = err.status === 404 ? 'This report cannot be exported from this server.' : errorText(err)
      } finally {
        b.disabled = false
      }
    })
    return b
  }
  return h('div', { class: 'export-actions', role: 'group', 'aria-label': 'Download the report' },
    button('json', 'Download JSON'), button('csv', 'Download CSV'), button('csv', 'Friends CSV', 'friends'),
    h('button', { type: 'button', class: 'button small ghost', id: 'print-report', onClick: () => window.print() }, 'Print / PDF')
  )
}
