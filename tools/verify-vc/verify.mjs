#!/usr/bin/env node
// verify.mjs checks seald's credentials with libraries nobody at seald wrote, as any verifier would:
//
//   node verify.mjs vc FILE --base URL [--allow-http-loopback]
//     a W3C VC 2.0 credential: its eddsa-rdfc-2022 proof (@digitalbazaar/vc with
//     @digitalbazaar/eddsa-rdfc-2022-cryptosuite), the issuer's key resolved from its did:web DID document, and
//     each Bitstring Status List entry (@digitalbazaar/vc-bitstring-status-list), whose list credential is
//     fetched and verified too.
//   node verify.mjs sdjwt-vc FILE --base URL [--allow-http-loopback] [--present name,degree --out FILE]
//     an SD-JWT VC (@sd-jwt/sd-jwt-vc): the issuer JWT's signature with the key its kid names in the DID
//     document, the disclosures, and its status in the IETF status list token; with --present, a presentation
//     of those top-level members only, written to --out and verified in turn.
//
// It prints one JSON line: {"verified": true, ...} and exits 0, or {"verified": false, "error": ...} and exits 1.
// Contexts: the W3C VC 2.0 context comes from @digitalbazaar/credentials-context; seald's context is read from
// the service (--base) at /credentials/contexts/v1; any other context is refused. did:web is resolved over
// https, or over http only with --allow-http-loopback and a loopback host (the tests' services).
import {readFileSync, writeFileSync} from 'node:fs';
import * as vc from '@digitalbazaar/vc';
import {DataIntegrityProof} from '@digitalbazaar/data-integrity';
import {cryptosuite as eddsaRdfc2022} from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import {checkStatus} from '@digitalbazaar/vc-bitstring-status-list';
import {contexts as vcContexts} from '@digitalbazaar/credentials-context';
import {SDJwtVcInstance} from '@sd-jwt/sd-jwt-vc';
import {digest, generateSalt} from '@sd-jwt/crypto-nodejs';

const SEALD_CONTEXT = 'https://seald.dev/ns/credentials/v1';

function args(argv) {
  const o = {_: []};
  for(let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if(a === '--allow-http-loopback') o.allowHTTP = true;
    else if(a.startsWith('--')) o[a.slice(2)] = argv[++i];
    else o._.push(a);
  }
  return o;
}

const opt = args(process.argv.slice(2));
const base = (opt.base || '').replace(/\/$/, '');

async function get(url, accept) {
  const u = new URL(url);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  if(u.protocol !== 'https:' && !(u.protocol === 'http:' && opt.allowHTTP && loopback)) {
    throw new Error(`refusing to fetch ${url}: not https (pass --allow-http-loopback for a loopback service)`);
  }
  const res = await fetch(url, {headers: {accept}});
  if(!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return res;
}

// didWebURL is the URL of a did:web DID document (the did:web method's rules).
function didWebURL(did) {
  const parts = did.slice('did:web:'.length).split(':').map(decodeURIComponent);
  const scheme = opt.allowHTTP && /^(127\.0\.0\.1|localhost)(:|$)/.test(parts[0]) ? 'http' : 'https';
  return parts.length > 1 ? `${scheme}://${parts.join('/')}/did.json` : `${scheme}://${parts[0]}/.well-known/did.json`;
}

const didDocs = new Map();
async function resolveDID(did) {
  if(!didDocs.has(did)) {
    const doc = await (await get(didWebURL(did), 'application/did+json')).json();
    if(doc.id !== did) throw new Error(`DID document of ${did} names ${doc.id}`);
    didDocs.set(did, doc);
  }
  return didDocs.get(did);
}

async function verificationMethod(id) {
  const did = id.split('#')[0];
  const doc = await resolveDID(did);
  const vm = (doc.verificationMethod || []).find(m => m.id === id);
  if(!vm) throw new Error(`${did} has no verification method ${id}`);
  return {'@context': doc['@context'], ...vm};
}

async function documentLoader(url) {
  if(vcContexts.has(url)) {
    return {contextUrl: null, documentUrl: url, document: vcContexts.get(url)};
  }
  if(url === SEALD_CONTEXT) {
    const document = await (await get(`${base}/credentials/contexts/v1`, 'application/ld+json')).json();
    return {contextUrl: null, documentUrl: url, document};
  }
  if(url.startsWith('did:web:')) {
    const document = url.includes('#') ? await verificationMethod(url) : await resolveDID(url);
    return {contextUrl: null, documentUrl: url, document};
  }
  if(base && url.startsWith(base + '/')) {
    // A status list credential the service publishes.
    return {contextUrl: null, documentUrl: url, document: await (await get(url, 'application/vc+ld+json')).json()};
  }
  throw new Error(`refusing to load ${url}: not a context or a document of the issuer`);
}

async function verifyVC(file) {
  const credential = JSON.parse(readFileSync(file, 'utf8'));
  const suite = new DataIntegrityProof({cryptosuite: eddsaRdfc2022});
  const statuses = {};
  const result = await vc.verifyCredential({
    credential, suite, documentLoader,
    checkStatus: async ({credential}) => {
      const r = await checkStatus({credential, documentLoader, suite});
      if(!r.verified) return r;
      for(const s of r.results) statuses[s.credentialStatus.statusPurpose] = s.status;
      return r;
    }
  });
  if(!result.verified) {
    const err = result.error || (result.results || []).map(r => r.error).find(Boolean);
    const msg = err ? (err.errors || [err]).map(e => e.message).join('; ') : 'not verified';
    return {verified: false, error: msg};
  }
  return {verified: true, issuer: credential.issuer, statuses, subject: credential.credentialSubject};
}

async function keyVerifier(kid) {
  const key = await Ed25519Multikey.from(await verificationMethod(kid));
  const v = key.verifier();
  return async (data, sig) => v.verify({data: new TextEncoder().encode(data), signature: Buffer.from(sig, 'base64url')});
}

function header(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString());
}

async function verifySDJWTVC(file) {
  const encoded = readFileSync(file, 'utf8').trim();
  const h = header(encoded.split('~')[0]);
  if(h.typ !== 'dc+sd-jwt') throw new Error(`typ is ${h.typ}, not dc+sd-jwt`);
  if(!String(h.kid).startsWith('did:web:')) throw new Error('the issuer JWT names no did:web key');
  let status = null;
  const sd = new SDJwtVcInstance({
    hasher: digest, saltGenerator: generateSalt, verifier: await keyVerifier(h.kid),
    statusListFetcher: async uri => {
      const jwt = await (await get(uri, 'application/statuslist+jwt')).text();
      const sh = header(jwt);
      if(sh.typ !== 'statuslist+jwt') throw new Error(`status list typ is ${sh.typ}`);
      const sub = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).sub;
      if(sub !== uri) throw new Error(`status list sub ${sub} is not its URI ${uri}`);
      sd.statusKid = sh.kid;
      return jwt;
    },
    statusVerifier: async (data, sig) => (await keyVerifier(sd.statusKid))(data, sig),
    statusValidator: async s => { status = s; },
  });
  const r = await sd.verify(encoded);
  if(!r.payload.iss || !h.kid.startsWith(r.payload.iss + '#')) throw new Error(`kid ${h.kid} is not a key of iss ${r.payload.iss}`);
  const out = {verified: true, iss: r.payload.iss, vct: r.payload.vct, status, claims: await sd.getClaims(encoded)};
  if(opt.present) {
    const frame = Object.fromEntries(opt.present.split(',').map(n => [n, true]));
    const presentation = await sd.present(encoded, frame);
    writeFileSync(opt.out, presentation);
    const p = await sd.verify(presentation);
    out.presented = await sd.getClaims(presentation);
    out.presentationStatus = status;
    delete p.kb;
  }
  return out;
}

try {
  const [mode, file] = opt._;
  let out;
  if(mode === 'vc') out = await verifyVC(file);
  else if(mode === 'sdjwt-vc') out = await verifySDJWTVC(file);
  else throw new Error('usage: verify.mjs vc|sdjwt-vc FILE --base URL [--allow-http-loopback] [--present a,b --out FILE]');
  console.log(JSON.stringify(out));
  process.exit(out.verified ? 0 : 1);
} catch(e) {
  console.log(JSON.stringify({verified: false, error: e.message}));
  process.exit(1);
}
