// Polls a background job's progress and reloads the page once it has finished.
(function () {
  const box = document.getElementById("trabajo");
  if (!box || box.dataset.estado === "terminado" || box.dataset.estado === "fallido") return;
  const bar = document.getElementById("avance");
  const text = document.getElementById("mensaje");
  async function poll() {
    const answer = await fetch("/api/trabajos/" + box.dataset.id, { credentials: "same-origin" });
    if (answer.ok) {
      const job = await answer.json();
      bar.max = job.pasos; bar.value = job.paso; text.textContent = job.mensaje;
      if (job.estado === "terminado" || job.estado === "fallido") { window.location.reload(); return; }
    }
    window.setTimeout(poll, 600);
  }
  window.setTimeout(poll, 300);
})();
