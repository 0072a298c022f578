#!/usr/bin/env node
// verify.mjs checks the SD-JWT form of a seald presentation (or any SD-JWT without key binding) with
// @sd-jwt/core, an SD-JWT library seald did not write, and Node's own Ed25519: the issuer JWT's EdDSA
// signature by a key of the issuer's trust root (named by the JWT's kid, not marked compromised), and every
// disclosure against the _sd digests. It prints the disclosed claims as JSON.
//
//   node verify.mjs FILE --trust trust.json [--require name,degree]
//
// FILE is a presentation of `seald disclose` (its sd_jwt member is read) or a bare SD-JWT. Exit 0 valid,
// 1 not valid (a missing --require claim included), 2 could not be read.
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

let encoded, trust;
try {
  const text = readFileSync(file, "utf8").trim();
  encoded = text.startsWith("{") ? JSON.parse(text).sd_jwt : text;
  trust = JSON.parse(readFileSync(trustFile, "utf8"));
} catch (e) {
  usage(e.message);
}
if (typeof encoded !== "string" || !encoded.includes("~")) {
  console.log("NOT valid: no SD-JWT in " + file);
  process.exit(1);
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

try {
  if (key === undefined) throw new Error(`the JWT's key ${header.kid} is not one the trust root lists (or it is compromised)`);
  const { payload } = await sdjwt.verify(encoded, { requiredClaimKeys: required });
  console.log("ok: " + JSON.stringify(payload));
} catch (e) {
  console.log("NOT valid: " + e.message);
  process.exit(1);
}
