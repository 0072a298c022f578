// proofcheck.js: the in-browser proof check of the verification page and of the standalone checker
// (seald-checker.html). It checks a record's proof bundle step by step, in the visitor's browser, against the
// issuer's trust root and a node of the chain the visitor chooses, the way `seald proof verify` does:
//
//   bundle      the file is a version 2 or 3 proof bundle (3 names its issuer: the business, and its did:web
//               domain when verified, docs/identity.md)
//   data        the SHA-256 of the RFC 8785 form of the data the visitor gave is the bundle's hash (check.js)
//   issuer      the trust root lists the bundle's chain, its contract for the anchor's block, and its key, not
//               marked compromised (a trust root fetched by URL must also be its origin's and signed by its
//               current key)
//   signature   the issuer's Ed25519 signature over the bundle (Web Crypto), and key_id names the key; it says
//               who sealed it as the bundle's issuer block says ("Sealed by NAME, DOMAIN, domain verified on
//               DATE" or "self-declared"): that block is covered by the service's signature, while the
//               business's own signature with its domain's key is for `seald proof verify --issuer DOMAIN`
//   path        the leaf binds the token id to the hash, and the Merkle path leads from it to the root
//               (Keccak-256 from @noble/hashes, noble-hashes.js)
//   chain       the node serves the bundle's chain id
//   root        the contract holds the bundle's root for the token, and its own verify accepts the path
//   anchor      the bundle's transaction succeeded in the bundle's block, called anchor on the contract for
//               this root and token, was sent by the issuer's anchoring address, and (for a retired key)
//               was made before the key's retirement; it gives the block's time
//   revocation  the contract's isRevoked
//
// A selective-disclosure presentation (type "seald-presentation", docs/disclosure.md) is checked as
// `seald proof verify` checks one (seald.Presentation.Reveal, evm.CheckPresentation):
//
//   presentation  the file is a version 1 presentation
//   issuer        the trust root lists the presentation's chain and its contract for the anchor's block
//   disclosures   each disclosure's digest (base64url SHA-256 of the disclosure string) is in the payload's
//                 _sd, or in a disclosed parent's, exactly once, and no disclosure is left over (RFC 9901 7.1)
//   commitment    the SHA-256 of the RFC 8785 form of the SD payload
//   path          the leaf keccak256(0x02 || uint256(token) || commitment) leads by the Merkle path to the root
//   chain, root, anchor, revocation   as for a bundle (root: the contract's rootOf only; its verify is for
//                 the content leaf)
//
// The disclosed members are then shown as text, never as HTML. The SD-JWT form's signature is not checked
// here (`seald proof verify --trust` does): the anchor on chain is what proves the payload.
//
// Every step runs and shows its own result, so a tampered bundle is seen failing where it was changed. The
// only requests are to the proof bundle and trust root URLs (on the page) and to the chosen node, and they
// carry nothing but the bundle's public members; the data the visitor gives never leaves the browser.
(function () {
  'use strict';

  var STEPS = [
    ['bundle', 'Proof file'],
    ['data', 'Your data'],
    ['issuer', 'Issuer (trust root)'],
    ['signature', "Issuer's signature"],
    ['path', 'Merkle path to the root'],
    ['chain', 'Chain'],
    ['root', 'Root on the chain'],
    ['anchor', 'Anchoring transaction'],
    ['revocation', 'Revocation']
  ];
  var PSTEPS = [
    ['presentation', 'Presentation file'],
    ['issuer', 'Issuer (trust root)'],
    ['disclosures', 'Disclosures against the payload'],
    ['commitment', 'Commitment'],
    ['signature', "Issuer's signature (SD-JWT)"],
    ['path', 'Leaf and Merkle path to the root'],
    ['chain', 'Chain'],
    ['root', 'Root on the chain'],
    ['anchor', 'Anchoring transaction'],
    ['revocation', 'Revocation']
  ];
  var PRESENTATION = 'seald-presentation';
  function isPresentation(p) { return !!p && typeof p === 'object' && p.type === PRESENTATION; }
  function stepsOf(p) { return isPresentation(p) ? PSTEPS : STEPS; }

  function Fail(message) { this.message = message; }
  function Unchecked(message) { this.message = message; }

  // Bytes and hex.
  function hexToBytes(h) {
    h = String(h).replace(/^0x/i, '');
    if (h.length % 2 !== 0 || /[^0-9a-fA-F]/.test(h)) throw new Fail('"' + h.slice(0, 20) + '" is not hex');
    var out = new Uint8Array(h.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(h.substr(i * 2, 2), 16);
    return out;
  }
  function bytesToHex(b) {
    var s = '0x';
    for (var i = 0; i < b.length; i++) s += (b[i] < 16 ? '0' : '') + b[i].toString(16);
    return s;
  }
  function concat(parts) {
    var n = 0;
    parts.forEach(function (p) { n += p.length; });
    var out = new Uint8Array(n);
    var o = 0;
    parts.forEach(function (p) { out.set(p, o); o += p.length; });
    return out;
  }
  function word(n) { // uint256, big-endian
    var h = BigInt(n).toString(16);
    return hexToBytes('0'.repeat(64 - h.length) + h);
  }
  function node32(h, what) {
    var b = hexToBytes(h);
    if (b.length !== 32) throw new Fail(what + ' ' + h + ' is not 32 bytes');
    return b;
  }
  function b64(s, what) {
    try {
      var bin = atob(String(s));
      var out = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
      return out;
    } catch (e) {
      throw new Fail(what + ' is not base64');
    }
  }
  function keccak(b) {
    if (!window.nobleHashes) throw new Unchecked('Keccak-256 (noble-hashes.js) is not loaded');
    return window.nobleHashes.keccak_256(b);
  }
  function sha256(b) {
    return crypto.subtle.digest('SHA-256', b).then(function (d) { return new Uint8Array(d); });
  }
  function same(a, b) { return String(a).toLowerCase() === String(b).toLowerCase(); }

  // canonicalText is the RFC 8785 form of a value, by check.js's canonicalize (which refuses what seald does).
  function canonicalText(v) { return window.sealdCheck.canonicalize(JSON.stringify(v)); }

  function ed25519Verify(pub, sig, msg) {
    if (!crypto.subtle) throw new Unchecked('this browser has no Web Crypto here: open the page over https');
    return crypto.subtle.importKey('raw', pub, { name: 'Ed25519' }, false, ['verify']).then(function (key) {
      return crypto.subtle.verify({ name: 'Ed25519' }, key, sig, msg);
    }, function () {
      throw new Unchecked('this browser cannot check Ed25519 signatures (Web Crypto); use a current Chromium, Firefox or Safari');
    });
  }

  // keyID is the first 16 hex digits of the SHA-256 of a raw public key, as seald names keys.
  function keyID(pub) { return sha256(pub).then(function (d) { return bytesToHex(d).slice(2, 18); }); }

  // bundleOf accepts a bare bundle, an API answer with ?proof=1, or `seald verify --json --proof`.
  function bundleOf(doc) {
    if (doc && doc.data && doc.data.proof) return doc.data.proof;
    if (doc && doc.proof) return doc.proof;
    return doc;
  }

  function checkBundle(p) {
    if (!p || typeof p !== 'object') throw new Fail('this is not a seald proof bundle');
    if (p.version !== 2 && p.version !== 3) throw new Fail('proof bundle version ' + p.version + ' is not one this checker reads (2 or 3)');
    if (p.version === 3 && (!p.issuer || typeof p.issuer !== 'object' || typeof p.issuer.name !== 'string')) throw new Fail('the bundle lacks its issuer');
    if (p.version === 2 && p.issuer !== undefined) throw new Fail('a version 2 bundle has no issuer member');
    ['reference', 'hash', 'chain_id', 'contract', 'token_id', 'leaf', 'root', 'tx_hash', 'key_id', 'public_key', 'signature'].forEach(function (k) {
      if (typeof p[k] !== 'string' || p[k] === '') throw new Fail('the bundle lacks its ' + k);
    });
    if (!/^[0-9a-f]{64}$/.test(p.hash)) throw new Fail('the bundle\'s hash is not 64 lowercase hex digits');
    if (!/^[0-9]+$/.test(p.token_id)) throw new Fail('the bundle\'s token_id is not a decimal number');
    if (!Array.isArray(p.merkle_path)) throw new Fail('the bundle lacks its merkle_path');
    if (typeof p.block_number !== 'number') throw new Fail('the bundle lacks its block_number');
    return 'record ' + p.reference + ', token ' + p.token_id + ' of contract ' + p.contract + ' on ' + 'chain ' + p.chain_id;
  }

  // checkTrustDoc checks a trust root fetched by URL as `seald proof verify --trust URL` does: its issuer is
  // the origin it came from, and it is signed by the key it lists as current. A file the visitor chose is
  // theirs to trust, as with --trust FILE.
  function trustDigest(doc) {
    var rest = {};
    Object.keys(doc).forEach(function (k) { if (k !== 'signatures') rest[k] = doc[k]; });
    return sha256(new TextEncoder().encode('seald trust root v2\n' + canonicalText(rest)));
  }
  function checkTrustSigned(doc, fromURL) {
    var origin = new URL(fromURL, location.href).origin;
    var issuer;
    try { issuer = new URL(doc.issuer).origin; } catch (e) { issuer = String(doc.issuer); }
    if (issuer !== origin) {
      return Promise.reject(new Fail('the trust root at ' + fromURL + ' names the issuer ' + doc.issuer + ', not ' + origin + ' where it came from'));
    }
    var cur = (doc.keys || []).filter(function (k) { return k.status === 'current'; })[0];
    if (!cur) return Promise.reject(new Fail('the trust root lists no current key'));
    var sig = (doc.signatures || []).filter(function (s) { return s.key_id === cur.key_id; })[0];
    if (!sig) return Promise.reject(new Fail('the trust root is not signed by its current key ' + cur.key_id));
    return trustDigest(doc).then(function (d) {
      return ed25519Verify(b64(cur.public_key, 'the current key'), b64(sig.signature, 'its signature'), d);
    }).then(function (ok) {
      if (!ok) throw new Fail('the trust root is not signed by its current key ' + cur.key_id);
    });
  }

  // matchAnchor is TrustRoot.CheckAnchor: the network and the contract range.
  function matchAnchor(p, doc) {
    if (!doc || doc.version !== 2) throw new Unchecked('trust root version ' + (doc && doc.version) + ' is not supported (2)');
    var net = null, contract = null, ranges = [];
    (doc.networks || []).forEach(function (n) {
      if (n.chain_id !== p.chain_id) return;
      (n.contracts || []).forEach(function (c) {
        if (!same(c.contract, p.contract)) return;
        if (p.block_number >= c.from_block && (c.to_block == null || p.block_number <= c.to_block)) { net = n; contract = c; }
        ranges.push(c.to_block == null ? 'blocks from ' + c.from_block : 'blocks ' + c.from_block + ' to ' + c.to_block);
      });
    });
    if (!net && !ranges.length) throw new Fail('chain ' + p.chain_id + ' and contract ' + p.contract + ' are not the issuer\'s');
    if (!net) throw new Fail('contract ' + p.contract + ' anchored for the issuer only in ' + ranges.join(' and ') + ', and this anchor is in block ' + p.block_number);
    return { network: net, contract: contract };
  }

  // matchTrust is TrustRoot.Check: the network, the contract range and the key.
  function matchTrust(p, doc) {
    var m = matchAnchor(p, doc);
    var net = m.network, contract = m.contract;
    var key = (doc.keys || []).filter(function (k) { return k.public_key === p.public_key && k.key_id === p.key_id; })[0];
    if (!key) throw new Fail('signing key ' + p.key_id + ' is not one the issuer lists');
    if (key.status === 'compromised') {
      throw new Fail('signing key ' + key.key_id + ' is marked compromised by the issuer' + (key.compromised_at ? ' since ' + key.compromised_at : '') + ': no bundle it signed is trusted');
    }
    if (key.status !== 'current' && key.status !== 'retired') throw new Fail('signing key ' + key.key_id + ' has status ' + key.status);
    return { network: net, contract: contract, key: key };
  }

  function checkSignature(p) {
    var pub = b64(p.public_key, 'public_key');
    var sig = b64(p.signature, 'signature');
    if (pub.length !== 32) return Promise.reject(new Fail('public_key is not an Ed25519 key'));
    if (sig.length !== 64) return Promise.reject(new Fail('signature is not an Ed25519 signature'));
    var rest = {};
    // Every member but signature and manifest (an unsigned link to the batch's manifest).
    Object.keys(p).forEach(function (k) { if (k !== 'signature' && k !== 'manifest') rest[k] = p[k]; });
    if (p.version >= 3 && p.issuer) rest.issuer = unsignedIssuer(p.issuer);
    return keyID(pub).then(function (id) {
      if (id !== p.key_id) throw new Fail('key_id ' + p.key_id + ' does not name the bundle\'s key (' + id + ')');
      return sha256(new TextEncoder().encode((p.version >= 3 ? 'seald proof v3\n' : 'seald proof v2\n') + canonicalText(rest)));
    }).then(function (digest) {
      return ed25519Verify(pub, sig, digest);
    }).then(function (ok) {
      if (!ok) throw new Fail('the signature does not match the bundle: a member was changed after the issuer signed it');
      return 'signed by key ' + p.key_id + (p.version >= 3 ? '. ' + issuerWords(p.issuer) : '');
    });
  }

  // unsignedIssuer is an issuer block without its signature, as the digests cover it.
  function unsignedIssuer(iss) {
    var out = {};
    Object.keys(iss).forEach(function (k) { if (k !== 'signature') out[k] = iss[k]; });
    return out;
  }

  // didDomain is the domain of a did:web DID, for people: did:web:127.0.0.1%3A8443 is 127.0.0.1:8443.
  function didDomain(did) {
    var parts = String(did || '').replace(/^did:web:/, '').split(':');
    parts[0] = parts[0].replace(/%3a/i, ':');
    return parts.join('/');
  }

  // issuerWords says who sealed a file, as its issuer block says, and what that rests on (issue 41).
  function issuerWords(iss) {
    if (!iss) return 'It names no issuer (made before issuer blocks).';
    if (iss.status === 'domain-verified' && iss.did && iss.verified_at) {
      var d = didDomain(iss.did);
      return 'Sealed by ' + iss.name + ', ' + d + ', domain verified on ' + String(iss.verified_at).slice(0, 10) +
        ': relied on the issuer block under the service\'s signature; the business\'s own signature with ' + d +
        '\'s key is checked by seald proof verify --issuer ' + d;
    }
    return 'Sealed by ' + iss.name + ' (self-declared name; no verified domain): relied on the service\'s signature alone';
  }

  // checkPath recomputes the Merkle tree as SealRegistry.verify does: leaf = keccak256(0x00 || uint256(token)
  // || hash), node = keccak256(0x01 || min(a, b) || max(a, b)).
  function checkPath(p) {
    var leaf = keccak(concat([new Uint8Array([0]), word(p.token_id), hexToBytes(p.hash)]));
    if (!same(bytesToHex(leaf), p.leaf)) throw new Fail('the hash and token id do not make the bundle\'s leaf');
    if (!same(bytesToHex(climb(leaf, p.merkle_path)), p.root)) throw new Fail('the Merkle path does not lead from the leaf to root ' + p.root);
    return 'the path of ' + p.merkle_path.length + ' node' + (p.merkle_path.length === 1 ? '' : 's') + ' leads to root ' + p.root;
  }

  // climb is the root the Merkle path leads to from leaf: node = keccak256(0x01 || min(a, b) || max(a, b)).
  function climb(leaf, path) {
    var node = leaf;
    path.forEach(function (s) {
      var sib = node32(s, 'path node');
      var a = bytesToHex(node), b = bytesToHex(sib);
      node = keccak(concat([new Uint8Array([1]), a <= b ? node : sib, a <= b ? sib : node]));
    });
    return node;
  }

  // Selective-disclosure presentations (seald's presentation.go).

  function checkPresentationShape(p) {
    if (p.version !== 1) throw new Fail('presentation version ' + p.version + ' is not one this checker reads (1)');
    ['network', 'chain_id', 'contract', 'token_id', 'root', 'tx_hash'].forEach(function (k) {
      if (typeof p[k] !== 'string' || p[k] === '') throw new Fail('the presentation lacks its ' + k);
    });
    if (!/^[0-9]+$/.test(p.token_id)) throw new Fail('the presentation\'s token_id is not a decimal number');
    if (!Array.isArray(p.merkle_path)) throw new Fail('the presentation lacks its merkle_path');
    if (typeof p.block_number !== 'number') throw new Fail('the presentation lacks its block_number');
    if (!p.sd_payload || typeof p.sd_payload !== 'object' || Array.isArray(p.sd_payload)) throw new Fail('the presentation\'s sd_payload is not a JSON object');
    if (!Array.isArray(p.disclosures)) throw new Fail('the presentation lacks its disclosures');
    return 'a presentation of ' + p.disclosures.length + ' disclosure' + (p.disclosures.length === 1 ? '' : 's') + ' for token ' + p.token_id +
      ' of contract ' + p.contract + ' on ' + 'chain ' + p.chain_id;
  }

  function b64url(bytes) {
    var bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function fromB64url(s) {
    if (typeof s !== 'string' || /[^A-Za-z0-9_-]/.test(s) || s.length % 4 === 1) return null;
    var bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function pointerToken(k) { return String(k).replace(/~/g, '~0').replace(/\//g, '~1'); }

  // reveal is seald.Presentation.Reveal: it checks the disclosures against the SD payload (every digest in
  // the payload or a disclosed parent exactly once, none left over) and returns the disclosed members, each
  // disclosed value with its JSON pointer (document order), and the payload's commitment.
  async function reveal(p) {
    var canonical;
    try {
      // The RFC 8785 form, by check.js's canonicalize (the same the data box and the bundle signature use,
      // tested against seald's jcs package); the payload holds only objects, arrays and strings.
      canonical = canonicalText(p.sd_payload);
    } catch (e) {
      throw new Fail('the sd_payload cannot be canonicalized: ' + e.message);
    }
    if (p.sd_payload._sd_alg !== 'sha-256') throw new Fail('the sd_payload\'s _sd_alg is not "sha-256"');
    var byDigest = Object.create(null), arrays = [], used = [];
    for (var i = 0; i < p.disclosures.length; i++) {
      var enc = p.disclosures[i];
      var raw = fromB64url(enc);
      if (!raw) throw new Fail('disclosure ' + (i + 1) + ' is not base64url');
      var d = b64url(await sha256(new TextEncoder().encode(enc)));
      if (d in byDigest) throw new Fail('disclosure ' + (i + 1) + ' is given twice');
      byDigest[d] = i;
      var arr;
      try {
        arr = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
      } catch (e) {
        arr = null;
      }
      if (!Array.isArray(arr) || arr.length < 2 || arr.length > 3) throw new Fail('disclosure ' + (i + 1) + ' is not a JSON array of 2 or 3 elements');
      if (typeof arr[0] !== 'string') throw new Fail('disclosure ' + (i + 1) + ': its salt is not a string');
      arrays.push(arr);
      used.push(false);
    }
    var shown = [];
    function take(d) {
      if (!(d in byDigest)) return null;
      var n = byDigest[d];
      if (used[n]) throw new Fail('disclosure ' + (n + 1) + ' is referenced twice by the payload');
      used[n] = true;
      return arrays[n];
    }
    function walk(pointer, v, disclosed) {
      if (Array.isArray(v)) {
        var list = [];
        v.forEach(function (e, i) {
          var ptr = pointer + '/' + i;
          if (isObject(e) && Object.keys(e).length === 1 && typeof e['...'] === 'string') {
            var arr = take(e['...']);
            if (!arr) return;
            if (arr.length !== 2) throw new Fail('a disclosure of a member stands for an element of "' + pointer + '"');
            list.push(walk(ptr, arr[1], true));
            return;
          }
          list.push(walk(ptr, e, disclosed));
        });
        if (disclosed && !list.length) shown.push([pointer, list]);
        return list;
      }
      if (!isObject(v)) {
        if (disclosed) shown.push([pointer, v]);
        return v;
      }
      var out = Object.create(null); // a member named __proto__ stays a member
      Object.keys(v).forEach(function (k) {
        if (k === '_sd' || (pointer === '' && k === '_sd_alg')) return;
        // A plain member is part of the committed payload; seald's payloads have none.
        out[k] = walk(pointer + '/' + pointerToken(k), v[k], disclosed);
      });
      if (own(v, '_sd')) {
        if (!Array.isArray(v._sd)) throw new Fail('_sd at "' + pointer + '" is not an array');
        v._sd.forEach(function (d) {
          if (typeof d !== 'string') throw new Fail('_sd at "' + pointer + '" holds a non-string digest');
          var arr = take(d);
          if (!arr) return;
          if (arr.length !== 3) throw new Fail('a disclosure of an array element stands for a member of "' + pointer + '"');
          var name = arr[1];
          if (typeof name !== 'string' || name === '_sd' || name === '...') throw new Fail('a disclosure in "' + pointer + '" has no valid member name');
          if (name in out) throw new Fail('member "' + name + '" of "' + pointer + '" is disclosed twice');
          out[name] = walk(pointer + '/' + pointerToken(name), arr[2], true);
        });
      }
      if (disclosed && !Object.keys(out).length) shown.push([pointer, out]);
      return out;
    }
    var members = walk('', p.sd_payload, false);
    used.forEach(function (u, n) {
      if (!u) throw new Fail('disclosure ' + (n + 1) + ' is not in the sealed payload: its value, name or place was altered');
    });
    return { members: members, shown: shown, commitment: await sha256(new TextEncoder().encode(canonical)) };
  }

  // The contract's functions, by their 4-byte selectors.
  function selector(sig) { return keccak(new TextEncoder().encode(sig)).slice(0, 4); }

  function rpcClient(url) {
    var id = 0;
    return function (method, params) {
      var req;
      try {
        req = fetch(url, {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'omit', referrerPolicy: 'no-referrer',
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: method, params: params })
        });
      } catch (e) {
        return Promise.reject(new Unchecked('the node ' + url + ' cannot be asked (' + e.message + ')'));
      }
      return req.then(function (r) {
        if (!r.ok) throw new Unchecked('the node answered HTTP ' + r.status + ' to ' + method);
        return r.json();
      }, function () {
        throw new Unchecked('the node ' + url + ' did not answer (' + method + '); check the URL, or try another node');
      }).then(function (j) {
        if (j.error) {
          var e = new Unchecked('the node refused ' + method + ': ' + (j.error.message || JSON.stringify(j.error)));
          e.rpc = j.error;
          throw e;
        }
        return j.result;
      });
    };
  }

  function ethCall(rpc, to, data) { return rpc('eth_call', [{ to: to, data: bytesToHex(data) }, 'latest']); }

  function isoSeconds(t) { return new Date(t * 1000).toISOString().replace('.000Z', 'Z'); }

  // checkPresentationSignature checks a presentation's sd_jwt as `seald proof verify` does: a presentation,
  // like a bundle, is signed by the issuer's signing key, not only anchored by its anchoring address. The JWT
  // is EdDSA by a key the trust root lists (not compromised), carries the payload's _sd, names the
  // presentation's anchor and commitment, and holds its disclosures. The key goes into match, so that the
  // anchor step trusts a retired key only for an anchor made before its retirement, as for a bundle.
  async function checkPresentationSignature(p, commitment, trust, match) {
    if (typeof p.sd_jwt !== 'string' || !p.sd_jwt) {
      throw new Fail('the presentation carries no sd_jwt, the issuer\'s signature: a presentation, like a bundle, must be signed by the issuer\'s signing key');
    }
    if (!commitment) throw new Fail('no commitment to check the signature against');
    var parts = p.sd_jwt.split('~');
    var seg = parts[0].split('.');
    if (parts.length < 2 || parts[parts.length - 1] !== '' || seg.length !== 3) throw new Fail('sd_jwt is not an SD-JWT without key binding (JWT~disclosures~)');
    var header, claims, sig = fromB64url(seg[2]);
    try {
      header = JSON.parse(new TextDecoder().decode(fromB64url(seg[0])));
      claims = JSON.parse(new TextDecoder().decode(fromB64url(seg[1])));
    } catch (e) {
      throw new Fail('sd_jwt: the issuer JWT is not base64url JSON');
    }
    if (!header || header.alg !== 'EdDSA' || !sig || !claims) throw new Fail('sd_jwt: the issuer JWT is not EdDSA');
    var key = ((trust && trust.keys) || []).filter(function (k) { return k.key_id === header.kid && k.status !== 'compromised'; })[0];
    if (!key) throw new Fail('sd_jwt: signed by key ' + header.kid + ', which the issuer does not list (or marks compromised)');
    if (!(await ed25519Verify(b64(key.public_key, 'public key'), sig, new TextEncoder().encode(seg[0] + '.' + seg[1])))) {
      throw new Fail('sd_jwt: the issuer\'s signature does not match');
    }
    var payload = p.sd_payload || {};
    if (JSON.stringify(claims._sd) !== JSON.stringify(payload._sd) || claims._sd_alg !== payload._sd_alg) {
      throw new Fail('sd_jwt: its _sd digests are not the presentation\'s payload');
    }
    var want = { network: p.network, chain_id: p.chain_id, contract: p.contract, token_id: p.token_id, commitment: bytesToHex(commitment).slice(2) };
    Object.keys(want).forEach(function (k) {
      if (!claims.seald || !same(claims.seald[k], want[k])) throw new Fail('sd_jwt: its seald.' + k + ' is not the presentation\'s ' + want[k]);
    });
    if (parts.slice(1, parts.length - 1).join('~') !== p.disclosures.join('~')) throw new Fail('sd_jwt: its disclosures are not the presentation\'s');
    if (match) match.key = key;
    return 'the SD-JWT form is signed by the issuer\'s key ' + key.key_id + ' (' + key.status + ') and says what the presentation says' +
      (claims.seald_issuer ? '. ' + issuerWords(claims.seald_issuer) : '');
  }

  // run checks bundle (or presentation) p; opts: {trust (document), trustURL (when fetched), rpc (URL), data
  // (text or '')}. report(id, result, message) is called as each step ends; result is pass, fail, skip or
  // unchecked.
  async function run(p, opts, report) {
    var failed = [], unchecked = [];
    async function step(id, f) {
      try {
        var msg = await f();
        if (msg && msg.skip) {
          report(id, 'skip', msg.skip);
          return null;
        }
        report(id, 'pass', msg || 'ok');
        return true;
      } catch (e) {
        if (e instanceof Fail) { failed.push(id); report(id, 'fail', e.message); return false; }
        unchecked.push(id);
        report(id, 'unchecked', e instanceof Unchecked ? e.message : 'could not check (' + (e && e.message || e) + ')');
        return false;
      }
    }
    var presentation = isPresentation(p);
    var what = presentation ? 'presentation' : 'bundle';
    var match = null, anchored = null, revoked = null, revealed = null;
    if (presentation) {
      if (!(await step('presentation', function () { return checkPresentationShape(p); }))) {
        PSTEPS.slice(1).forEach(function (s) { report(s[0], 'skip', 'not checked: the file is not a presentation this checker reads'); });
        return { verdict: 'invalid', failed: ['presentation'] };
      }
      await step('issuer', async function () {
        if (opts.trustURL) await checkTrustSigned(opts.trust, opts.trustURL);
        if (!opts.trust || opts.trust.version !== 2) throw new Unchecked('trust root version ' + (opts.trust && opts.trust.version) + ' is not supported (2)');
        match = matchAnchor(p, opts.trust);
        return (opts.trust.issuer || 'the issuer') + ' lists chain ' + p.chain_id + ' and contract ' + p.contract + ' for block ' + p.block_number +
          (match.network.development ? '; a development chain: it proves nothing beyond the issuer\'s own machine' : '');
      });
      await step('disclosures', async function () {
        revealed = await reveal(p);
        return 'the ' + p.disclosures.length + ' disclosure' + (p.disclosures.length === 1 ? ' is' : 's are') + ' in the payload, each once: ' +
          (revealed.shown.map(function (m) { return describePointer(m[0]); }).join(', ') || 'no member');
      });
      var commitment = null;
      await step('commitment', async function () {
        if (revealed) {
          commitment = revealed.commitment;
        } else {
          var canonical;
          try {
            canonical = canonicalText(p.sd_payload);
          } catch (e) {
            throw new Fail('the sd_payload cannot be canonicalized: ' + e.message);
          }
          commitment = await sha256(new TextEncoder().encode(canonical));
        }
        return 'the SHA-256 of the canonical payload is ' + bytesToHex(commitment).slice(2);
      });
      await step('signature', function () { return checkPresentationSignature(p, commitment, opts.trust, match); });
      await step('path', function () {
        if (!commitment) throw new Fail('no commitment to make the leaf from');
        var leaf = keccak(concat([new Uint8Array([2]), word(p.token_id), commitment]));
        if (!same(bytesToHex(climb(leaf, p.merkle_path)), p.root)) {
          throw new Fail('the payload\'s commitment is not the one anchored for token ' + p.token_id + ': its Merkle path does not lead to root ' + p.root);
        }
        return 'the disclosure leaf ' + bytesToHex(leaf) + ' leads by ' + p.merkle_path.length + ' node' + (p.merkle_path.length === 1 ? '' : 's') + ' to root ' + p.root;
      });
    } else {
      if (!(await step('bundle', function () { return checkBundle(p); }))) {
        STEPS.slice(1).forEach(function (s) { report(s[0], 'skip', 'not checked: the proof file is not a bundle'); });
        return { verdict: 'invalid', failed: ['bundle'] };
      }
      await step('data', async function () {
        if (!opts.data || !opts.data.trim()) return { skip: 'not checked: give the data (in the box above, or as a file) to check that it is the sealed data' };
        var got;
        try {
          got = await window.sealdCheck.hashData(opts.data);
        } catch (e) {
          throw new Fail('your data cannot be checked: ' + e.message);
        }
        if (got !== p.hash) throw new Fail('your data\'s fingerprint is ' + got + ', not the bundle\'s ' + p.hash);
        return 'your data\'s fingerprint is the bundle\'s';
      });
      await step('issuer', async function () {
        if (opts.trustURL) await checkTrustSigned(opts.trust, opts.trustURL);
        match = matchTrust(p, opts.trust);
        var who = opts.trust.issuer || 'the issuer';
        return who + ' lists chain ' + p.chain_id + ', contract ' + p.contract + ' for block ' + p.block_number + ' and key ' + p.key_id +
          ' (' + match.key.status + ')' + (match.network.development ? '; a development chain: it proves nothing beyond the issuer\'s own machine' : '');
      });
      await step('signature', function () { return checkSignature(p); });
      await step('path', function () { return checkPath(p); });
    }

    var rpc = rpcClient(opts.rpc);
    var token = BigInt(p.token_id);
    var chainOK = await step('chain', async function () {
      if (!opts.rpc) throw new Unchecked('give the URL of a node of ' + 'chain ' + p.chain_id);
      var id = BigInt(await rpc('eth_chainId', []));
      if (id.toString() !== p.chain_id) throw new Fail('the node is on chain ' + id + ', not the ' + what + '\'s chain ' + p.chain_id);
      return 'the node ' + opts.rpc + ' is on chain ' + p.chain_id;
    });
    if (!chainOK) {
      ['root', 'anchor', 'revocation'].forEach(function (s) { report(s, 'skip', 'not checked: no node of the ' + what + '\'s chain'); });
      return finish();
    }
    var contract = p.contract;
    await step('root', async function () {
      var out;
      try {
        out = await ethCall(rpc, contract, concat([selector('rootOf(uint256)'), word(token)]));
      } catch (e) {
        if (e.rpc) throw new Fail('contract ' + contract + ' has no token ' + p.token_id + ' (' + e.rpc.message + ')');
        throw e;
      }
      if (!out || out === '0x') throw new Fail('there is no seald contract at ' + contract);
      if (!same(out, p.root)) throw new Fail('the contract holds root ' + out + ' for token ' + p.token_id + ', not the ' + what + '\'s ' + p.root);
      if (presentation) return 'contract ' + contract + ' holds root ' + p.root + ' for token ' + p.token_id;
      var path = p.merkle_path.map(function (s) { return node32(s, 'path node'); });
      var verify = await ethCall(rpc, contract, concat([selector('verify(uint256,bytes32,bytes32[])'), word(token), hexToBytes(p.hash),
        word(96), word(path.length)].concat(path)));
      if (BigInt(verify || '0x0') !== 1n) throw new Fail('the contract does not verify the proof of token ' + p.token_id);
      return 'contract ' + contract + ' holds root ' + p.root + ' for token ' + p.token_id + ' and verifies the path';
    });
    await step('anchor', async function () {
      var tx = await rpc('eth_getTransactionByHash', [p.tx_hash]);
      if (!tx) throw new Fail('transaction ' + p.tx_hash + ' is not on the chain');
      var receipt = await rpc('eth_getTransactionReceipt', [p.tx_hash]);
      if (!receipt || BigInt(receipt.status) !== 1n || Number(BigInt(receipt.blockNumber)) !== p.block_number) {
        throw new Fail('transaction ' + p.tx_hash + ' did not succeed in block ' + p.block_number);
      }
      if (!tx.to || !same(tx.to, contract)) throw new Fail('transaction ' + p.tx_hash + ' was not sent to contract ' + contract);
      var input = hexToBytes(tx.input || tx.data || '');
      if (input.length !== 4 + 96 || bytesToHex(input.slice(0, 4)) !== bytesToHex(selector('anchor(bytes32,uint256,uint256)'))) {
        throw new Fail('transaction ' + p.tx_hash + ' did not call anchor');
      }
      var first = BigInt(bytesToHex(input.slice(36, 68))), count = BigInt(bytesToHex(input.slice(68, 100)));
      if (!same(bytesToHex(input.slice(4, 36)), p.root) || token < first || token >= first + count) {
        throw new Fail('transaction ' + p.tx_hash + ' did not anchor root ' + p.root + ' for token ' + p.token_id);
      }
      if (match && !same(tx.from, match.contract.anchorer)) {
        throw new Fail('the anchoring transaction was sent by ' + tx.from + ', not by the issuer\'s anchoring address ' + match.contract.anchorer);
      }
      var block = await rpc('eth_getBlockByNumber', ['0x' + p.block_number.toString(16), false]);
      if (!block) throw new Unchecked('the node does not have block ' + p.block_number);
      anchored = Number(BigInt(block.timestamp));
      // A retired key covers the blocks up to the chain's head at its retirement when the trust root lists it
      // (retired_blocks), else the anchors whose block time is before its retired_at.
      var covered = match && match.key && (match.key.retired_blocks || []).filter(function (b) { return b.chain_id === p.chain_id; })[0];
      if (covered && match.key.status === 'retired' && p.block_number > covered.block) {
        throw new Fail('signing key ' + match.key.key_id + ' was retired at block ' + covered.block + ' of chain ' + p.chain_id +
          ', before this anchor (block ' + p.block_number + '): a retired key is trusted only for earlier anchors');
      }
      if (!covered && match && match.key && match.key.status === 'retired' && anchored >= Date.parse(match.key.retired_at) / 1000) {
        throw new Fail('signing key ' + match.key.key_id + ' was retired at ' + match.key.retired_at + ', before this anchor (block ' +
          p.block_number + ', ' + isoSeconds(anchored) + '): a retired key is trusted only for earlier anchors');
      }
      return 'anchored in block ' + p.block_number + ' at ' + isoSeconds(anchored) + ' by ' + tx.from + ', transaction ' + p.tx_hash;
    });
    await step('revocation', async function () {
      var out = await ethCall(rpc, contract, concat([selector('isRevoked(uint256)'), word(token)]));
      revoked = BigInt(out || '0x0') !== 0n;
      if (revoked) throw new Fail('revoked: the issuer has revoked token ' + p.token_id + ' on the chain; do not rely on this record');
      return 'not revoked: the chain holds no revocation of token ' + p.token_id;
    });
    return finish();

    function finish() {
      var onlyRevoked = failed.length === 1 && failed[0] === 'revocation';
      var verdict = onlyRevoked && !unchecked.length ? 'revoked' : failed.length && !onlyRevoked ? 'invalid' : unchecked.length ? 'unchecked' : 'valid';
      return {
        verdict: verdict, failed: failed, unchecked: unchecked, anchored: anchored, revoked: revoked,
        development: !!(match && match.network.development), bundle: p, presentation: presentation,
        disclosed: revealed && revealed.shown
      };
    }
  }

  // describePointer writes a JSON pointer for people: "/grades/math" as "grades.math".
  function describePointer(ptr) {
    return ptr.replace(/^\//, '').split('/').map(function (t) { return t.replace(/~1/g, '/').replace(/~0/g, '~'); }).join('.');
  }

  window.sealdProof = { run: run, steps: STEPS, presentationSteps: PSTEPS, bundleOf: bundleOf };

  // The user interface: the same element ids on the page (#proof-form with data-proof and data-trust URLs)
  // and in the standalone checker (#proof-form with file inputs).
  var form = document.getElementById('proof-form');
  if (!form) return;
  var list = document.getElementById('proof-steps');
  var verdict = document.getElementById('proof-verdict');
  var button = document.getElementById('proof-button');
  form.hidden = false;

  var WORDS = { pass: 'Passed', fail: 'Failed', skip: 'Not checked', unchecked: 'Could not check' };

  function show(kind, text) {
    verdict.className = 'result ' + kind;
    verdict.textContent = text;
  }

  // disclosedBox lists a presentation's disclosed members under the steps, as text: their values are the
  // holder's and may be anything, so they never reach innerHTML.
  var disclosedBox = document.createElement('div');
  disclosedBox.id = 'proof-disclosed';
  disclosedBox.className = 'disclosed';
  disclosedBox.hidden = true;
  list.parentNode.insertBefore(disclosedBox, list.nextSibling);

  function showDisclosed(shown, valid) {
    disclosedBox.textContent = '';
    disclosedBox.hidden = !shown;
    if (!shown) return;
    var head = document.createElement('p');
    var strong = document.createElement('strong');
    strong.textContent = 'Disclosed members';
    head.appendChild(strong);
    head.appendChild(document.createTextNode(valid ? ' (the issuer sealed them as shown; every other member is hidden, seen only as a salted digest):'
      : ' (as the presentation says: the check did not pass, do not rely on them):'));
    disclosedBox.appendChild(head);
    var ul = document.createElement('ul');
    ul.setAttribute('aria-label', 'Disclosed members');
    shown.forEach(function (m) {
      var li = document.createElement('li');
      li.setAttribute('data-pointer', m[0]);
      var name = document.createElement('code');
      name.setAttribute('translate', 'no');
      name.textContent = describePointer(m[0]);
      li.appendChild(name);
      li.appendChild(document.createTextNode(': ' + (typeof m[1] === 'string' ? m[1] : JSON.stringify(m[1]))));
      ul.appendChild(li);
    });
    disclosedBox.appendChild(ul);
  }

  function reset(steps) {
    list.textContent = '';
    showDisclosed(null);
    steps.forEach(function (s) {
      var li = document.createElement('li');
      li.id = 'step-' + s[0];
      li.setAttribute('data-step', s[0]);
      li.setAttribute('data-result', 'pending');
      var name = document.createElement('strong');
      name.textContent = s[1] + ': ';
      var word = document.createElement('span');
      word.className = 'step-result';
      word.textContent = 'checking…';
      var msg = document.createElement('span');
      msg.className = 'step-message';
      li.appendChild(name);
      li.appendChild(word);
      li.appendChild(document.createTextNode(' '));
      li.appendChild(msg);
      list.appendChild(li);
    });
  }

  function report(id, result, message) {
    var li = document.getElementById('step-' + id);
    if (!li) return;
    li.setAttribute('data-result', result);
    li.querySelector('.step-result').textContent = WORDS[result] + '.';
    li.querySelector('.step-message').textContent = message;
  }

  function readFile(input, what) {
    var f = input && input.files && input.files[0];
    if (!f) return Promise.reject(new Unchecked('choose the ' + what + ' file'));
    return f.text();
  }

  function parse(text, what) {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new Unchecked('the ' + what + ' is not JSON (' + e.message + ')');
    }
  }

  // otherRecord refuses, on a record's page, a visitor's file for another record (another token, contract or
  // chain): a "Valid" shown under this record would read as said of it.
  function otherRecord(p) {
    var want = { chain_id: form.getAttribute('data-chain-id'), contract: form.getAttribute('data-contract'), token_id: form.getAttribute('data-token-id') };
    Object.keys(want).forEach(function (k) {
      if (want[k] && !same(p && p[k], want[k])) {
        throw new Fail('the file is for ' + k.replace('_id', '').replace('_', ' ') + ' ' + String(p && p[k]) + ', not this record\'s ' + want[k] +
          ': this page checks files of this record only; check it on its own record\'s page or with the standalone checker');
      }
    });
  }

  async function load() {
    var proofURL = form.getAttribute('data-proof');
    var trustURL = form.getAttribute('data-trust');
    var p, trust;
    var mine = document.getElementById('proof-file'); // the page's: a proof or presentation file of the visitor's
    if (proofURL && mine && mine.files && mine.files[0]) {
      p = bundleOf(parse(await mine.files[0].text(), 'proof file'));
      otherRecord(p);
      var tr = await fetch(trustURL, { cache: 'no-store', credentials: 'omit' }).catch(function () {
        throw new Unchecked('the issuer\'s trust root could not be downloaded from ' + trustURL);
      });
      if (!tr.ok) throw new Unchecked('the issuer\'s trust root could not be downloaded (HTTP ' + tr.status + ')');
      trust = parse(await tr.text(), 'trust root');
    } else if (proofURL) {
      var r = await fetch(proofURL, { cache: 'no-store', credentials: 'omit' }).catch(function () {
        throw new Unchecked('the proof file could not be downloaded');
      });
      if (!r.ok) throw new Unchecked('the proof file could not be downloaded (HTTP ' + r.status + ')');
      p = bundleOf(parse(await r.text(), 'proof file'));
      var t = await fetch(trustURL, { cache: 'no-store', credentials: 'omit' }).catch(function () {
        throw new Unchecked('the issuer\'s trust root could not be downloaded from ' + trustURL);
      });
      if (!t.ok) throw new Unchecked('the issuer\'s trust root could not be downloaded (HTTP ' + t.status + ')');
      trust = parse(await t.text(), 'trust root');
    } else {
      p = bundleOf(parse(await readFile(document.getElementById('proof-bundle-file'), 'proof bundle'), 'proof file'));
      trust = parse(await readFile(document.getElementById('proof-trust-file'), 'trust root'), 'trust root');
      trustURL = '';
    }
    var dataBox = document.getElementById('proof-data') || document.getElementById('check-data');
    var data = dataBox ? dataBox.value : '';
    var dataFile = document.getElementById('proof-data-file');
    if (!data.trim() && dataFile && dataFile.files && dataFile.files[0]) data = await dataFile.files[0].text();
    return { p: p, opts: { trust: trust, trustURL: trustURL, rpc: document.getElementById('proof-rpc').value.trim(), data: data } };
  }

  async function check() {
    button.disabled = true;
    show('pending', 'Checking the proof…');
    reset(STEPS);
    try {
      var got = await load();
      var steps = stepsOf(got.p);
      if (steps !== STEPS) reset(steps);
      var res = await run(got.p, got.opts, report);
      if (res.presentation) showDisclosed(res.disclosed || null, res.verdict === 'valid');
      var when = res.anchored ? ' It was anchored at ' + isoSeconds(res.anchored) + ' (block ' + got.p.block_number + ').' : '';
      if (res.verdict === 'valid' && res.development) {
        show('error', 'Every step passed, on a development chain: the proof holds on the issuer\'s own chain only, and proves nothing to anyone else.' + when);
      } else if (res.verdict === 'valid') {
        show('match', res.presentation ? 'Valid: every step passed. The disclosed members below were sealed and anchored by the issuer, and the record is not revoked.' + when
          : 'Valid: every step passed. This exact data was anchored by the issuer and is not revoked.' + when);
      } else if (res.verdict === 'revoked') {
        show('nomatch', 'Revoked: the proof is valid, but the issuer has revoked the record on the chain. Do not rely on it.' + when);
      } else if (res.verdict === 'invalid') {
        show('nomatch', 'Not valid: the check failed at ' + res.failed.map(function (id) {
          return steps.filter(function (s) { return s[0] === id; })[0][1];
        }).join(', ') + '. Do not rely on this proof.');
      } else {
        show('error', 'Could not check every step: see the steps below.');
      }
    } catch (e) {
      show('error', 'Could not check: ' + (e instanceof Unchecked || e instanceof Fail ? e.message : String(e && e.message || e)) + '.');
    } finally {
      button.disabled = false;
    }
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    check();
  });
})();
