// The part of @noble/hashes the verification page's proof check uses: Keccak-256, which Web Crypto lacks.
export { keccak_256 } from '@noble/hashes/sha3.js';
