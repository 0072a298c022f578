#!/usr/bin/env node
// verify.mjs checks the SD-JWT form of a seald presentation (or any SD-JWT without key binding) with
// @sd-jwt/core, an SD-JWT library seald did not write, and Node's own Ed25519: the issuer JWT's EdDSA
// signature by a key of the issuer's trust root (named by the JWT's kid, not marked compromised, and if
// retired, retired after the JWT's iat), and every
// disclosure against the _sd digests. It prints the disclosed claims as JSON.
//
//   node verify.mjs FILE --trust trust.json [--require name,degree]
//
// FILE is a presentation of `seald disclose` or a bare SD-JWT. Of a presentation, the sd_jwt member is
// verified and the members shown beside it (disclosures, sd_payload, the anchor) must say the same, or the
// file is not valid. Exit 0 valid, 1 not valid (a missing --require claim included), 2 could not be read.
import { createHash, createPublicKey, verify as edVerify } from "node:crypto";
import { readFileSync } from "node:fs";
import { SDJwtInstance } from "@sd-jwt/core";

function usage(msg) {
  console.error(`verify-sdjwt: ${msg}\nusage: node verify.mjs FILE --trust trust.json [--require a,b]`);
  process.exit(2);
}

const args = process.argv.slice(2);
let file, trustFile, required = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--trust") trustFile = args[++i];
  else if (args[i] === "--require") required = args[++i].split(",").filter(Boolean);
  else if (!file) file = args[i];
  else usage(`unexpected ${args[i]}`);
}
if (!file || !trustFile) usage("FILE and --trust are required");

let encoded, trust, visible;
try {
  const text = readFileSync(file, "utf8").trim();
  if (text.startsWith("{")) {
    visible = JSON.parse(text);
    encoded = visible.sd_jwt;
  } else {
    encoded = text;
  }
  trust = JSON.parse(readFileSync(trustFile, "utf8"));
} catch (e) {
  usage(e.message);
}
if (typeof encoded !== "string" || !encoded.includes("~")) {
  console.log("NOT valid: no SD-JWT in " + file);
  process.exit(1);
}

// sameAsVisible throws unless the members a reader of a presentation file sees beside sd_jwt say what the
// verified SD-JWT says: its disclosures, in order, the members of its payload (sd_payload) and its anchor.
// Only sd_jwt is verified, so a file whose visible disclosures were edited (MSc to PhD) would otherwise pass
// while showing claims nobody signed.
function sameAsVisible(v, encoded) {
  const parts = encoded.split("~");
  const carried = parts.slice(1, parts.length - 1);
  if (v.disclosures !== undefined && JSON.stringify(v.disclosures) !== JSON.stringify(carried)) {
    throw new Error("the file's visible disclosures are not the ones its sd_jwt carries and this check verified: the file was changed");
  }
  const claims = JSON.parse(Buffer.from(parts[0].split(".")[1], "base64url").toString("utf8"));
  for (const [name, value] of Object.entries(v.sd_payload || {})) {
    if (canonical(value) !== canonical(claims[name])) {
      throw new Error(`the file's visible sd_payload.${name} is not the one its sd_jwt carries: the file was changed`);
    }
  }
  const anchor = claims.seald || {};
  for (const name of ["network", "chain_id", "contract", "token_id"]) {
    if (v[name] !== undefined && String(v[name]).toLowerCase() !== String(anchor[name]).toLowerCase()) {
      throw new Error(`the file's visible ${name} ${v[name]} is not the one its sd_jwt carries (${anchor[name]}): the file was changed`);
    }
  }
}

// canonical writes a JSON value with its object members sorted, so that two values compare by content.
function canonical(x) {
  if (Array.isArray(x)) return "[" + x.map(canonical).join(",") + "]";
  if (x !== null && typeof x === "object") {
    return "{" + Object.keys(x).sort().map((k) => JSON.stringify(k) + ":" + canonical(x[k])).join(",") + "}";
  }
  return JSON.stringify(x);
}

// An Ed25519 public key in SPKI DER: the fixed prefix of RFC 8410 and the 32 raw bytes.
const spki = (raw) => createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]), format: "der", type: "spki" });
const header = JSON.parse(Buffer.from(encoded.split(".")[0], "base64url").toString("utf8"));
const key = (trust.keys || []).find((k) => k.key_id === header.kid && k.status !== "compromised");

const sdjwt = new SDJwtInstance({
  hashAlg: "sha-256",
  hasher: (data) => new Uint8Array(createHash("sha256").update(data).digest()),
  verifier: (data, sig) =>
    key !== undefined && header.alg === "EdDSA" &&
    edVerify(null, Buffer.from(data), spki(Buffer.from(key.public_key, "base64")), Buffer.from(sig, "base64url")),
});

// retiredBefore is the refusal of a JWT by a key the trust root lists as retired at or before the JWT's iat
// (when the record was sealed, hence at or before its anchor): a retired key is trusted only for records
// made before its retirement, as `seald proof verify` holds. iat is the JWT's own claim, which the key's
// holder chose; only the chain tells when the anchor was made, so `seald proof verify` checks that too.
function retiredBefore(key, claims) {
  if (key.status !== "retired" || !key.retired_at) return undefined;
  const retired = Date.parse(key.retired_at);
  if (typeof claims.iat !== "number" || !(claims.iat * 1000 < retired)) {
    return `the JWT's key ${key.key_id} was retired at ${key.retired_at}, and this JWT says it was issued at ` +
      `${typeof claims.iat === "number" ? new Date(claims.iat * 1000).toISOString() : "no time (no iat)"}, not before it: ` +
      "a retired key is trusted only for records sealed before its retirement";
  }
  return undefined;
}

try {
  if (key === undefined) throw new Error(`the JWT's key ${header.kid} is not one the trust root lists (or it is compromised)`);
  const late = retiredBefore(key, JSON.parse(Buffer.from(encoded.split("~")[0].split(".")[1] || "", "base64url").toString("utf8") || "{}"));
  if (late !== undefined) throw new Error(late);
  const { payload } = await sdjwt.verify(encoded, { requiredClaimKeys: required });
  if (visible !== undefined) sameAsVisible(visible, encoded);
  console.log("ok: " + JSON.stringify(payload));
} catch (e) {
  console.log("NOT valid: " + e.message);
  process.exit(1);
}
