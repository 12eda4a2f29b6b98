// Generation progress as a stepper of its stages. Updates come from the event stream and, while it
// is away, from polling; the two can interleave, so an update older than what is shown (an earlier
// stage or a lower percentage) is ignored: the stepper never goes back. Once finished it stays.
import { h } from '../dom.js'

export const STAGES = [
  ['queued', 'Queued', 'Waiting for a worker'],
  ['collecting', 'Collecting', 'Collecting profile data'],
  ['interests', 'Interests', 'Computing interests'],
  ['friends', 'Friends', 'Comparing friends'],
  ['diffs', 'Timeline', 'Building the monthly timeline'],
  ['ready', 'Ready', 'Every section below is up to date.']
]
const IDS = STAGES.map(([id]) => id)
// The progress the worker sets as it enters each stage: a polled report carries no stage name.
const ENTERED_AT = [0, 10, 40, 70, 90, 100]

/** the stage an update stands for: its name when it has one, else the one its progress reached */
export function stageIndex ({ status, stage, progress }) {
  if (status === 'ready') return IDS.length - 1
  const named = IDS.indexOf(stage)
  if (named >= 0) return named
  let i = 0
  while (i + 1 < ENTERED_AT.length - 1 && (progress ?? 0) >= ENTERED_AT[i + 1]) i++
  return i
}

export function createStepper () {
  const fill = h('span', { class: 'progress-fill' })
  const meter = h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0', 'aria-label': 'Report generation' }, fill)
  const value = h('strong', { class: 'progress-value' }, '0%')
  const title = h('h3', null, 'Generating the report')
  const label = h('p', { class: 'progress-label', role: 'status' })
  const steps = STAGES.map(([id, name]) => h('li', { class: 'step pending', dataset: { stage: id } },
    h('span', { class: 'step-dot', 'aria-hidden': 'true' }),
    h('span', { class: 'step-name' }, name),
    h('span', { class: 'visually-hidden step-state' }, ' (to do)')
  ))
  const node = h('section', { class: 'card progress-card', id: 'progress', dataset: { progress: '0', status: 'queued', stage: 'queued' } },
    h('div', { class: 'section-head' }, title, value),
    h('ol', { class: 'stepper', 'aria-label': 'Generation stages' }, steps),
    meter, label
  )
  let shownStage = -1
  let shownProgress = -1
  let finished = false

  /** applies an update; false when it was older than what is shown (or came after the end) */
  const set = (update) => {
    if (finished) return false
    const failed = update.status === 'failed'
    const index = stageIndex(update)
    const p = update.status === 'ready' ? 100 : Math.min(100, Math.round(update.progress ?? 0))
    if (!failed && (index < shownStage || (index === shownStage && p < shownProgress))) return false
    shownStage = Math.max(shownStage, index)
    shownProgress = Math.max(shownProgress, p)
    finished = failed || update.status === 'ready'
    steps.forEach((step, n) => {
      const state = n < shownStage || update.status === 'ready' ? 'done' : n === shownStage ? (failed ? 'failed' : 'current') : 'pending'
      step.className = `step ${state}`
      if (state === 'current' || state === 'failed') step.setAttribute('aria-current', 'step')
      else step.removeAttribute('aria-current')
      step.querySelector('.step-state').textContent = { done: ' (done)', current: ' (in progress)', failed: ' (failed)', pending: ' (to do)' }[state]
    })
    fill.style.width = `${shownProgress}%`
    meter.setAttribute('aria-valuenow', String(shownProgress))
    value.textContent = `${shownProgress}%`
    Object.assign(node.dataset, { progress: String(shownProgress), status: update.status, stage: IDS[shownStage] })
    node.classList.toggle('done', update.status === 'ready')
    node.classList.toggle('failed', failed)
    title.textContent = update.status === 'ready' ? 'Report ready' : failed ? 'Generation failed' : 'Generating the report'
    label.textContent = failed
      ? `Stopped while ${STAGES[shownStage][2].toLowerCase()}. Your credit was returned; you can generate it again.`
      : STAGES[shownStage][2]
    return true
  }

  /** the finished card folds away once the report is on screen (it stays in the page, hidden) */
  const fold = () => {
    node.classList.add('folding')
    setTimeout(() => { node.hidden = true }, 350)
  }

  return { node, set, fold }
}
