import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monitorLoop, outsideLoopBudget } from '../src/loop-monitor.ts';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

function turn(): Promise<void> {
  return new Promise((done) => setTimeout(done, 20));
}

test('a synchronous hold is measured, however long, and a reset forgets it', async () => {
  const monitor = monitorLoop();
  try {
    for (const ms of [30, 80, 150]) {
      monitor.reset();
      await turn();
      spin(ms);
      const worst = await monitor.worst();
      assert.ok(worst.ms >= ms * 0.8 && worst.ms <= ms + 40, `held ${ms} ms, measured ${worst.ms}`);
    }
    monitor.reset();
    await turn();
    assert.ok((await monitor.worst()).ms < 30);
  } finally {
    monitor.stop();
  }
});

test('work inside outsideLoopBudget is not counted', async () => {
  const monitor = monitorLoop();
  try {
    await turn();
    await outsideLoopBudget(() => spin(100));
    await turn();
    assert.ok((await monitor.worst()).ms < 30);
  } finally {
    monitor.stop();
  }
});
