// The console's one script, an enhancement only: every page works without it. On the page of newly sealed
// records it updates the table in place every two seconds until each record is COMPLETED or FAILED (without
// script, the page's Refresh link does the same by hand).
(function () {
  'use strict';
  var table = document.querySelector('table.sealed[data-pending]');
  if (!table || !window.fetch || !window.DOMParser) {
    return;
  }
  function tick() {
    fetch(location.href, {credentials: 'same-origin', headers: {'Accept': 'text/html'}})
      .then(function (r) { return r.ok ? r.text() : Promise.reject(new Error('HTTP ' + r.status)); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, 'text/html');
        var fresh = doc.querySelector('table.sealed');
        var progress = doc.getElementById('progress');
        if (!fresh || !progress) {
          return;
        }
        table.replaceChild(document.importNode(fresh.tBodies[0], true), table.tBodies[0]);
        document.getElementById('progress').textContent = progress.textContent;
        if (fresh.hasAttribute('data-pending')) {
          setTimeout(tick, 2000);
        } else {
          table.removeAttribute('data-pending');
        }
      })
      .catch(function () { setTimeout(tick, 5000); });
  }
  setTimeout(tick, 2000);
})();
