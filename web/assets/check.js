// check.js: the "Check your data" box of the verification page. It canonicalizes the JSON a person pastes
// or drops (RFC 8785, JSON Canonicalization Scheme), hashes it with SHA-256 through Web Crypto, and compares
// the result with the record's fingerprint embedded in the page. Nothing is sent anywhere: there is no
// network call in this file (the proof check, proofcheck.js, asks a chain node only for public members of
// the proof bundle, and never sends the data).
//
// Written by hand because RFC 8785 needs only what ECMAScript already is: JSON.parse reads the text, the
// Number-to-String of ES6 is the RFC's number serialization, JSON.stringify of a string is its string
// serialization, and the default sort of strings compares UTF-16 code units as the RFC's member order does.
// What is added is refusing what seald's server refuses, so that a match here means the same as there:
// duplicate member names, lone surrogates, integers whose canonical form is another value, and too deep nesting.
(function () {
  'use strict';

  var MAX_DEPTH = 128; // as package jcs

  function CheckError(message) { this.message = message; }

  var loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  // Unicode's noncharacters: U+FDD0..U+FDEF and the last two code points of every plane (as UTF-16).
  var noncharacter = /[\uFDD0-\uFDEF\uFFFE\uFFFF]|[\uD83F\uD87F\uD8BF\uD8FF\uD93F\uD97F\uD9BF\uD9FF\uDA3F\uDA7F\uDABF\uDAFF\uDB3F\uDB7F\uDBBF\uDBFF][\uDFFE\uDFFF]/;

  function checkString(s) {
    if (loneSurrogate.test(s)) {
      throw new CheckError('the data has a string with an unpaired surrogate (\\ud800 to \\udfff), which is not valid Unicode text');
    }
    if (noncharacter.test(s)) {
      throw new CheckError('the data has a Unicode noncharacter in a string, which RFC 7493 (I-JSON) says not to send');
    }
  }

  // decimal reads a JSON number literal exactly, as 0.d × 10^n with d free of leading and trailing zeros
  // (d is '' for zero), so that two spellings denote the same value exactly when both parts are equal.
  function decimal(lit) {
    var m = /^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(lit);
    var all = m[1] + (m[2] || '');
    var lead = all.search(/[1-9]/);
    if (lead < 0) return { d: '', n: 0 };
    return { d: all.slice(lead).replace(/0+$/, ''), n: m[1].length - lead + (m[3] ? parseInt(m[3], 10) : 0) };
  }

  // checkNumber refuses, as seald does, an integer literal whose canonical form (ES6 Number-to-String of the
  // double JSON.parse reads) is another value and that no double holds: 9007199254740993 would become
  // 9007199254740992, and two different texts would share a hash. A literal with a fraction or an exponent is
  // hashed as RFC 8785 says (0.10000000000000001 is 0.1), and every integer a double holds is accepted.
  function checkNumber(lit) {
    if (/[.eE]/.test(lit)) return;
    var v = Number(lit); // the double JSON.parse reads
    if (!isFinite(v)) return; // serialize refuses it
    var canonical = JSON.stringify(v);
    var a = decimal(lit);
    var b = decimal(canonical);
    if ((a.d !== b.d || a.n !== b.n) && BigInt(lit) !== BigInt(v)) {
      throw new CheckError('the data has the number ' + lit + ', which would become ' + canonical + ' in its ' +
        'RFC 8785 canonical form, a different value: RFC 7493 (I-JSON) says to send only numbers an IEEE 754 ' +
        'double holds, so seald seals it only as a string');
    }
  }

  // duplicateName scans valid JSON text for an object with the same member name twice, which JSON.parse
  // silently collapses to its last value, and returns the first such name (or null). It also checks each
  // number literal, which JSON.parse would round, with checkNumber.
  function duplicateName(text) {
    var stack = [];
    var i = 0;
    var n = text.length;
    while (i < n) {
      var c = text.charAt(i);
      var top = stack[stack.length - 1];
      if (c === '"') {
        var j = i + 1;
        while (text.charAt(j) !== '"') {
          if (text.charAt(j) === '\\') j++;
          j++;
        }
        if (top && top.names && top.expectName) {
          var name = JSON.parse(text.slice(i, j + 1));
          if (top.names.has(name)) return name;
          top.names.add(name);
          top.expectName = false;
        }
        i = j + 1;
        continue;
      }
      if (c === '-' || (c >= '0' && c <= '9')) {
        var k = i;
        while (k < n && '-+.eE0123456789'.indexOf(text.charAt(k)) >= 0) k++;
        checkNumber(text.slice(i, k));
        i = k;
        continue;
      }
      if (c === '{') stack.push({ names: new Set(), expectName: true });
      else if (c === '[') stack.push({ names: null, expectName: false });
      else if (c === '}' || c === ']') stack.pop();
      else if (c === ',' && top && top.names) top.expectName = true;
      i++;
    }
    return null;
  }

  function serialize(v, depth) {
    if (v === null || v === true || v === false) return String(v);
    if (typeof v === 'number') {
      if (!isFinite(v)) throw new CheckError('the data has a number too large for an IEEE 754 double');
      return JSON.stringify(v); // ES6 Number-to-String; -0 becomes 0
    }
    if (typeof v === 'string') {
      checkString(v);
      return JSON.stringify(v);
    }
    if (depth >= MAX_DEPTH) throw new CheckError('the data is nested more than ' + MAX_DEPTH + ' levels deep');
    if (Array.isArray(v)) {
      return '[' + v.map(function (x) { return serialize(x, depth + 1); }).join(',') + ']';
    }
    var names = Object.keys(v).sort(); // UTF-16 code unit order
    return '{' + names.map(function (k) {
      checkString(k);
      return JSON.stringify(k) + ':' + serialize(v[k], depth + 1);
    }).join(',') + '}';
  }

  // canonicalize returns the RFC 8785 canonical form of a JSON text, or throws a CheckError.
  function canonicalize(text) {
    var value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new CheckError('this is not valid JSON (' + e.message + ')');
    }
    var dup = duplicateName(text);
    if (dup !== null) throw new CheckError('the data has the member name ' + JSON.stringify(dup) + ' twice');
    return serialize(value, 0);
  }

  function sha256Hex(s) {
    if (!window.crypto || !window.crypto.subtle) {
      return Promise.reject(new CheckError('this browser cannot hash here: open the page over https'));
    }
    return window.crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)).then(function (buf) {
      return Array.prototype.map.call(new Uint8Array(buf), function (b) {
        return (b < 16 ? '0' : '') + b.toString(16);
      }).join('');
    });
  }

  // hashData is what the box does with a text: it must be a JSON object, as seald's `data` always is.
  function hashData(text) {
    var canonical;
    try {
      canonical = canonicalize(text);
    } catch (e) {
      return Promise.reject(e);
    }
    if (canonical.charAt(0) !== '{') return Promise.reject(new CheckError('the data must be a JSON object ({ ... })'));
    return sha256Hex(canonical);
  }

  window.sealdCheck = { canonicalize: canonicalize, sha256Hex: sha256Hex, hashData: hashData };

  var form = document.getElementById('check');
  if (!form) return;
  var area = document.getElementById('check-data');
  var file = document.getElementById('check-file');
  var result = document.getElementById('check-result');
  var want = form.getAttribute('data-hash');
  form.hidden = false;

  function show(kind, text) {
    result.className = 'result ' + kind;
    result.textContent = text;
  }

  function check() {
    var text = area.value;
    if (text.trim() === '') {
      show('error', 'Paste the JSON data first, or choose its file.');
      return;
    }
    hashData(text).then(function (got) {
      if (got === want) {
        show('match', 'Match: this is exactly the data that was sealed.');
      } else {
        show('nomatch', 'No match: this is not the data that was sealed. Its fingerprint is ' + got + '.');
      }
    }, function (e) {
      show('error', 'Cannot check: ' + (e instanceof CheckError ? e.message : 'the browser could not hash the data') + '.');
    });
  }

  function load(f) {
    if (!f) return;
    f.text().then(function (t) {
      area.value = t;
      check();
    }, function () {
      show('error', 'Cannot check: the file could not be read.');
    });
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    check();
  });
  file.addEventListener('change', function () { load(file.files[0]); });
  area.addEventListener('dragover', function (e) {
    e.preventDefault();
    area.classList.add('dragging');
  });
  area.addEventListener('dragleave', function () { area.classList.remove('dragging'); });
  area.addEventListener('drop', function (e) {
    e.preventDefault();
    area.classList.remove('dragging');
    if (e.dataTransfer && e.dataTransfer.files.length > 0) load(e.dataTransfer.files[0]);
  });
})();
