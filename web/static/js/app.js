// Every screen: progress bars of the jobs it follows, and "select all"
// boxes. Text from the server is set with textContent only.

const FINISHED = new Set(['done', 'complete', 'inconclusive', 'failed']);

function follow(box) {
  const bar = box.querySelector('[data-job-bar]');
  const status = box.querySelector('[data-job-status]');
  const count = box.querySelector('[data-job-count]');
  const stage = box.querySelector('[data-job-stage]');
  const reload = box.closest('[data-reload="true"]') !== null;
  const poll = async () => {
    let job;
    try {
      const res = await fetch(box.dataset.job, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
      if (!res.ok) return setTimeout(poll, 2000);
      job = await res.json();
    } catch {
      return setTimeout(poll, 2000);
    }
    status.textContent = job.status;
    if (stage) stage.textContent = job.stage || '';
    count.textContent = `${job.done}/${job.total}`;
    if (job.finished) {
      bar.max = job.total || 1;
      bar.value = job.total || 1;
      box.dataset.status = job.status;
      // The screen shows what the job changed once it is drawn again.
      if (reload) setTimeout(() => location.reload(), 400);
      return;
    }
    if (job.total > 0) {
      bar.max = job.total;
      bar.value = job.done;
    } else {
      bar.removeAttribute('value');
    }
    box.dataset.status = job.status;
    setTimeout(poll, 300);
  };
  poll();
}

for (const box of document.querySelectorAll('[data-job]')) {
  if (!FINISHED.has(box.dataset.status)) follow(box);
}

for (const all of document.querySelectorAll('[data-select-all]')) {
  const form = all.form;
  const boxes = () => [...form.querySelectorAll(`input[type=checkbox][name="${all.dataset.selectAll}"]:not(:disabled)`)];
  all.addEventListener('change', () => { for (const b of boxes()) b.checked = all.checked; });
}
