// The image formats the service passes on, each known by its first bytes. The type a fetched image
// is served with is the one its bytes show, never the one the remote server claimed: a file that is
// not one of these (HTML, a script, SVG, which can carry script) is not served whatever its label.
// SVG is not among them at all.

/** the media types asked for and accepted from the remote server */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'] as const
export type ImageType = typeof IMAGE_TYPES[number]

const startsWith = (bytes: Buffer, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b)
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0))

/** the format the bytes are, or null when they are none of IMAGE_TYPES */
export function sniffImage (bytes: Buffer): ImageType | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif'
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp'
  // an ISO-BMFF file whose brand is AVIF (a still image or an image sequence)
  if (startsWith(bytes, ascii('ftyp'), 4) && (startsWith(bytes, ascii('avif'), 8) || startsWith(bytes, ascii('avis'), 8))) return 'image/avif'
  return null
}
