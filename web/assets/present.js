// present.js: makes a selective-disclosure presentation from a disclosure package in the browser, as
// `seald disclose PACKAGE --members ...` does (seald.DisclosurePackage.Present): each chosen member with
// everything beneath it, and its ancestors' disclosures. Nothing is sent anywhere: the package holds every
// member's value, and the presentation is downloaded from memory.
(function () {
  'use strict';

  function PresentError(message) { this.message = message; }

  // packageOf accepts a bare package or the API's answer ({"data": package}).
  function packageOf(doc) {
    if (doc && doc.data && typeof doc.data === 'object' && !Array.isArray(doc.data)) doc = doc.data;
    if (!doc || doc.type !== 'seald-disclosure-package' || doc.version !== 1) {
      throw new PresentError('this is not a seald disclosure package of version 1');
    }
    if (!doc.sd_payload || !doc.token_id || !doc.root || !Array.isArray(doc.disclosures)) {
      throw new PresentError('the package lacks its sd_payload, token_id, root or disclosures');
    }
    doc.disclosures.forEach(function (d) {
      if (!d || typeof d.path !== 'string' || typeof d.disclosure !== 'string') throw new PresentError('a disclosure of the package has no path');
    });
    return doc;
  }

  // make is DisclosurePackage.Present: pointers are JSON pointers of the package's members.
  function make(pkg, pointers) {
    var keep = Object.create(null);
    pointers.forEach(function (ptr) {
      var found = false;
      pkg.disclosures.forEach(function (d) {
        if (d.path === ptr || d.path.indexOf(ptr + '/') === 0) { keep[d.path] = true; found = true; }
      });
      if (!found) throw new PresentError('the package has no member ' + ptr);
      for (var a = ptr; ;) {
        var i = a.lastIndexOf('/');
        if (i <= 0) break;
        a = a.slice(0, i);
        keep[a] = true;
      }
    });
    var out = {
      type: 'seald-presentation', version: 1, network: pkg.network, chain_id: pkg.chain_id
    };
    if (pkg.chain_name) out.chain_name = pkg.chain_name;
    ['contract', 'token_id', 'merkle_path', 'root', 'tx_hash', 'block_number', 'sd_payload'].forEach(function (k) { out[k] = pkg[k]; });
    out.disclosures = pkg.disclosures.filter(function (d) { return keep[d.path]; }).map(function (d) { return d.disclosure; });
    var jwt = typeof pkg.sd_jwt === 'string' ? pkg.sd_jwt.split('~')[0] : '';
    if (jwt) out.sd_jwt = jwt + '~' + out.disclosures.map(function (d) { return d + '~'; }).join('');
    return out;
  }

  // describe writes a JSON pointer for people: "/grades/math" as "grades.math".
  function describe(ptr) {
    return ptr.replace(/^\//, '').split('/').map(function (t) { return t.replace(/~1/g, '/').replace(/~0/g, '~'); }).join('.');
  }

  // valueOf reads what a disclosure discloses: the last element of its [salt, name, value] (or, for an
  // array's element, [salt, value]) array, base64url-encoded JSON. undefined when it cannot be read.
  function valueOf(disclosure) {
    try {
      var b64 = disclosure.replace(/-/g, '+').replace(/_/g, '/');
      while (b64.length % 4) b64 += '=';
      var bin = atob(b64);
      var bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      var arr = JSON.parse(new TextDecoder().decode(bytes));
      return Array.isArray(arr) && arr.length >= 2 ? { value: arr[arr.length - 1] } : undefined;
    } catch (e) {
      return undefined;
    }
  }

  // valueText writes a member's value as the holder will disclose it: a string in quotes, a number, true,
  // false or null as JSON; an object or a list by what it is, its members being listed under it.
  function valueText(v) {
    if (!v) return 'its value cannot be read';
    v = v.value;
    if (v !== null && typeof v === 'object') return Array.isArray(v) ? 'a list: its items are below' : 'an object: its members are below';
    return JSON.stringify(v);
  }

  window.sealdPresent = { packageOf: packageOf, make: make, valueOf: valueOf };

  var form = document.getElementById('present-form');
  if (!form) return;
  var fileInput = document.getElementById('present-package');
  var fieldset = document.getElementById('present-members');
  var list = document.getElementById('present-list');
  var button = document.getElementById('present-button');
  var status = document.getElementById('present-status');
  var pkg = null;
  form.hidden = false;

  function show(kind, text) {
    status.className = 'result ' + kind;
    status.textContent = text;
  }

  fileInput.addEventListener('change', function () {
    pkg = null;
    list.textContent = '';
    fieldset.hidden = true;
    button.disabled = true;
    status.className = 'result';
    status.textContent = '';
    var f = fileInput.files && fileInput.files[0];
    if (!f) return;
    f.text().then(function (text) {
      var doc;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        throw new PresentError('the file is not JSON (' + e.message + ')');
      }
      pkg = packageOf(doc);
      // One checkbox per member, in the package's order (parents before their members), indented by depth.
      // Names and values are the data's own: they are written as text only.
      pkg.disclosures.forEach(function (d, i) {
        var li = document.createElement('li');
        li.className = 'depth-' + Math.min(d.path.split('/').length - 2, 4);
        var box = document.createElement('input');
        box.type = 'checkbox';
        box.id = 'present-member-' + i;
        box.value = d.path;
        var label = document.createElement('label');
        label.htmlFor = box.id;
        var name = document.createElement('span');
        name.className = 'member';
        name.textContent = describe(d.path);
        var value = document.createElement('code');
        value.className = 'value';
        value.textContent = valueText(valueOf(d.disclosure));
        label.appendChild(name);
        label.appendChild(document.createTextNode(' = '));
        label.appendChild(value);
        li.appendChild(box);
        li.appendChild(label);
        list.appendChild(li);
      });
      fieldset.hidden = false;
      button.disabled = false;
      show('pending', 'Package of token ' + pkg.token_id + ' read: ' + pkg.disclosures.length + ' members, each with the value it discloses. Tick the ones to show.');
    }).catch(function (e) {
      show('error', 'Cannot read the package: ' + (e instanceof PresentError ? e.message : String(e && e.message || e)) + '.');
    });
  });

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    if (!pkg) return;
    var chosen = Array.prototype.filter.call(list.querySelectorAll('input[type=checkbox]'), function (b) { return b.checked; })
      .map(function (b) { return b.value; });
    if (!chosen.length) {
      show('error', 'Tick at least one member to show.');
      return;
    }
    var pr;
    try {
      pr = make(pkg, chosen);
    } catch (err) {
      show('error', 'Cannot make the presentation: ' + (err instanceof PresentError ? err.message : String(err)) + '.');
      return;
    }
    var url = URL.createObjectURL(new Blob([JSON.stringify(pr, null, 2) + '\n'], { type: 'application/json' }));
    var a = document.createElement('a');
    a.href = url;
    a.download = 'presentation.json';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
    show('match', 'Presentation of ' + chosen.map(describe).join(', ') + ' downloaded as presentation.json, with ' + pr.disclosures.length +
      ' disclosure' + (pr.disclosures.length === 1 ? '' : 's') + '. Check it before you hand it on.');
  });
})();
