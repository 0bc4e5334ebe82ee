// A replay's result: the recorded decision next to today's, whether they agree, and each
// hook's verdict then and now with the ones that changed highlighted.

import type { Replay } from '../types'
import { Badge } from './ui'

type Side = Replay['hooks'][number]['old']

function Verdict({ side }: { side: Side }) {
  if (!side) return <span class="hint">absent</span>
  return (
    <>
      <Badge value={side.outcome} /> <span class="hint">v{side.version}</span>
      {side.reason && <span class="sub">{side.reason}</span>}
    </>
  )
}

export function DecisionReplay({ replay }: { replay: Replay }) {
  return (
    <div class="dec-replay">
      <p class={replay.differs ? 'dec-verdict dec-differs' : 'dec-verdict dec-same'} role="status">
        {replay.differs ? 'Different today' : 'Same decision today'}
      </p>
      <div class="dec-sides">
        <div class="card">
          <h3>Recorded</h3>
          <p>
            <Badge value={replay.old.decision} />
          </p>
          <p class="dec-reason">{replay.old.reason || <span class="hint">no reason</span>}</p>
        </div>
        <div class="card">
          <h3>Today</h3>
          <p>
            <Badge value={replay.new.decision} />
          </p>
          <p class="dec-reason">{replay.new.reason || <span class="hint">no reason</span>}</p>
        </div>
      </div>
      {replay.hooks.length > 0 && (
        <div class="table-wrap">
          <table class="dec-replay-hooks">
            <caption class="visually-hidden">Each hook's verdict, recorded and today</caption>
            <thead>
              <tr>
                <th scope="col">Hook</th>
                <th scope="col">Recorded</th>
                <th scope="col">Today</th>
              </tr>
            </thead>
            <tbody>
              {replay.hooks.map((h) => (
                <tr key={h.hook} class={h.changed ? 'dec-changed' : undefined}>
                  <th scope="row">
                    {h.hook}
                    {h.changed && <span class="badge tone-warn">changed</span>}
                  </th>
                  <td>
                    <Verdict side={h.old} />
                  </td>
                  <td>
                    <Verdict side={h.new} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="hint">
        {replay.hooks.some((h) => h.changed)
          ? `${replay.hooks.filter((h) => h.changed).length} hook(s) changed their verdict.`
          : 'No hook changed its verdict.'}
      </p>
    </div>
  )
}
