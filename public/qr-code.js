// A QR code drawn as SVG nodes (no markup string: the page's CSP and the house rule on text in the
// DOM), from the matrix of the uqr encoder, served by this server from its installed package
// (/vendor/uqr/). Dark modules on a white square with the quiet zone a scanner needs, in light and
// dark mode alike.
import { encode } from '/vendor/uqr/index.mjs'
import { s } from './charts/svg.js'

/** an <svg> of `text` as a QR code, named `label` for assistive technology */
export function qrCode (text, label) {
  // medium error correction and a four-module border: what authenticator apps scan reliably
  const { size, data } = encode(text, { ecc: 'M', border: 4 })
  let d = ''
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (data[y][x]) d += `M${x},${y}h1v1h-1z`
  }
  return s('svg', { class: 'qr-code', viewBox: `0 0 ${size} ${size}`, width: 200, height: 200, role: 'img', 'aria-label': label, 'shape-rendering': 'crispEdges' },
    s('rect', { width: size, height: size, fill: '#fff' }),
    s('path', { d, fill: '#000' }))
}
