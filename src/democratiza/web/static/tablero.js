// While an offer is open its page reloads every 30 s, so the intake's figures stay current;
// never while someone has started to type in one of its forms.
(function () {
  let typing = false;
  document.addEventListener("input", function () { typing = true; });
  document.addEventListener("focusin", function (e) {
    if (e.target.matches("input, select, textarea")) typing = true;
  });
  window.setInterval(function () { if (!typing) window.location.reload(); }, 30000);
})();
