package e2e

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"seald.dev/seald/evm/gethtest"
	"seald.dev/seald/ipfs"
	"seald.dev/seald/ipfs/kubotest"
	"seald.dev/seald/mail/mailpittest"
)

// TestServeWithKubo runs serve on a real Kubo daemon: records complete with CIDs Kubo holds, and while Kubo is
// down (peerOutage) a record keeps its state, shows IPFS_ERROR, and completes once Kubo is back.
func TestServeWithKubo(t *testing.T) {
	t.Parallel() // it mostly waits out its outage: the other outage tests wait beside it
	kubo := kubotest.Start(t)
	in := startServe(t, t.TempDir(), nil, "--ipfs", kubo.APIURL)
	r := in.post(authPath, map[string]any{"data": map[string]any{"on": "kubo"}, "to": "a@example.com"})
	ref := str(r.Body, "data.reference")
	rec := in.waitState(ref, "COMPLETED", 60*time.Second)
	cid := str(rec, "cid")
	out, err := kubo.Run("cat", cid)
	if err != nil {
		t.Fatalf("kubo cat %s: %v", cid, err)
	}
	if got, _ := ipfs.CID(t.Context(), out); got != cid {
		t.Errorf("the bytes Kubo holds hash to %s, not %s", got, cid)
	}
	if strings.Contains(string(out), "kubo") {
		t.Error("plaintext in the stored envelope")
	}
	if pins, err := kubo.Run("pin", "ls", "--type=recursive", cid); err != nil || !strings.Contains(string(pins), cid) {
		t.Errorf("not pinned: %s %v", pins, err)
	}

	kubo.Stop()
	down := time.Now()
	r = in.post(authPath, map[string]any{"data": map[string]any{"during": "outage"}, "to": "a@example.com"})
	ref = str(r.Body, "data.reference")
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := in.get(statusPath + "?reference=" + ref).Body["data"]
		if str(st, "error_type") == "IPFS_ERROR" {
			if str(st, "state") != "PENDING" || str(st, "error_message") == "" {
				t.Errorf("during the outage: %v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("IPFS_ERROR never shown: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	holdOutage(down) // a real outage: peerOutage, several retries of the store step
	kubo.Restart()
	rec = in.waitState(ref, "COMPLETED", 90*time.Second)
	if rec["error_message"] != nil || str(rec, "error_type") != "" {
		t.Errorf("error not cleared after recovery: %v", rec)
	}
}

// TestServeWithSMTP runs serve against a real SMTP server (mailpit): every record's message arrives once with
// its recipients and parts; a server that rejects the recipient ends the mail step in FAILED while the
// record stays verifiable.
func TestServeWithSMTP(t *testing.T) {
	t.Parallel()
	mp := mailpittest.Start(t, mailpittest.WithChaos())
	in := startServe(t, t.TempDir(), nil, "--smtp", mp.PlainURL, "--mail-from", "Séald Notary <notary@seald.test>")
	var refs []string
	for i := range 3 {
		isHTML := i == 2
		body := "Plain body"
		if isHTML {
			body = "<p>An <b>HTML</b> body</p>"
		}
		r := in.post(authPath, map[string]any{"data": map[string]any{"mail": i}, "to": "Zoë Example <zoe@example.com>",
			"cc": "cc1@example.com, cc2@example.com", "subject": "Versiegelt: Prüfung ✓", "body": body, "is_html": isHTML})
		refs = append(refs, str(r.Body, "data.reference"))
	}
	for _, ref := range refs {
		in.waitState(ref, "COMPLETED", 60*time.Second)
	}
	msgs, err := mp.Messages()
	if err != nil {
		t.Fatal(err)
	}
	for i, ref := range refs {
		var got []mailpittest.Message
		for _, m := range msgs {
			if strings.HasPrefix(m.MessageID, ref+"@") {
				got = append(got, m)
			}
		}
		if len(got) != 1 {
			t.Fatalf("%s: %d messages, want 1", ref, len(got))
		}
		m := got[0]
		if m.Subject != "Versiegelt: Prüfung ✓" || len(m.To) != 1 || m.To[0].Address != "zoe@example.com" ||
			m.To[0].Name != "Zoë Example" || len(m.Cc) != 2 || m.From.Name != "Séald Notary" {
			t.Errorf("%s: headers %+v", ref, m)
		}
		if !strings.Contains(m.Text, "/v/"+ref) {
			t.Errorf("%s: text part lacks the link: %q", ref, m.Text)
		}
		if i == 2 && (!strings.Contains(m.HTML, "<b>HTML</b>") || !strings.Contains(m.HTML, "/v/"+ref)) {
			t.Errorf("%s: HTML part %q", ref, m.HTML)
		}
		if i < 2 && m.HTML != "" {
			t.Errorf("%s: a plain message has an HTML part", ref)
		}
	}

	if err := mp.SetChaos(mailpittest.Chaos{Recipient: mailpittest.Trigger{ErrorCode: 550, Probability: 100}}); err != nil {
		t.Fatal(err)
	}
	r := in.post(authPath, map[string]any{"data": map[string]any{"mail": "rejected"}, "to": "nobody@example.com"})
	ref := str(r.Body, "data.reference")
	rec := in.waitState(ref, "FAILED", 60*time.Second)
	if str(rec, "error_type") != "EMAIL_ERROR" || !strings.Contains(str(rec, "error_message"), "550") || str(rec, "token_id") == "" {
		t.Errorf("rejected mail: %v", rec)
	}
	if v := in.get(verifyBase + "reference?reference=" + ref); v.Status != 200 || str(v.Body, "data.status") != "ACTIVE" {
		t.Errorf("a rejected e-mail unsealed the record: %d %s", v.Status, v.Raw)
	}
}

// TestSealOnEOS runs a second network, EOS (EOS EVM is an EVM chain: here a real geth), beside the embedded
// POLYGON chain: the EOS path seals there, and verification by token id picks the network. The geth serves
// EOS EVM mainnet's chain id with a block a second, and no --eos-confirmations is given: seald waits its
// default for EOS EVM's chains, 12 blocks after the anchoring transaction's, before the record is anchored.
func TestSealOnEOS(t *testing.T) {
	t.Parallel() // it starts its own serve (and chain, browser) and mostly waits on them
	eos := gethtest.Start(t, gethtest.Options{ChainID: 17777, Period: 1})
	keyFile := filepath.Join(t.TempDir(), "eos.key")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(crypto.FromECDSA(eos.Key))), 0o600); err != nil {
		t.Fatal(err)
	}
	in := startServe(t, t.TempDir(), nil, "--eos-chain", eos.URL, "--eos-key-file", keyFile)
	r := in.post("/svc-data/data/authentication/ipfs/sm-eos/email", map[string]any{"data": map[string]any{"on": "eos"}, "to": "a@example.com"})
	if r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	eosRef := str(r.Body, "data.reference")
	r = in.post(authPath, map[string]any{"data": map[string]any{"on": "polygon"}, "to": "a@example.com"})
	polyRef := str(r.Body, "data.reference")
	eosRec := in.waitState(eosRef, "COMPLETED", 90*time.Second)
	polyRec := in.waitState(polyRef, "COMPLETED", 90*time.Second)
	if str(eosRec, "blockchain_network") != "EOS" || str(eosRec, "pipeline") != "ipfs/sm-eos/email" {
		t.Errorf("EOS record: %v", eosRec)
	}
	for _, c := range []struct{ net, token, ref string }{
		{"EOS", str(eosRec, "token_id"), eosRef}, {"POLYGON", str(polyRec, "token_id"), polyRef}, {"eos", str(eosRec, "token_id"), eosRef},
	} {
		v := in.get(verifyBase + "token-id?token_id=" + c.token + "&blockchain=" + c.net)
		if v.Status != 200 || str(v.Body, "data.details.reference") != c.ref {
			t.Errorf("token %s on %s: %d %s", c.token, c.net, v.Status, v.Raw)
		}
	}
	p := in.get(verifyBase + "reference?reference=" + eosRef + "&proof=1")
	if str(p.Body, "data.proof.chain_id") != "17777" {
		t.Errorf("EOS proof chain id: %s", p.Raw)
	}
	if !strings.Contains(in.logText(), `"network":"EOS","chain":"EOS EVM mainnet (17777)"`) ||
		!strings.Contains(in.logText(), `"finality":"confirmations","confirmations":12}`) {
		t.Errorf("EOS on chain 17777 does not log the 12 confirmations it waits for\n%s", in.logText())
	}
	head, err := eos.Client().BlockNumber(t.Context())
	if block := field(p.Body, "data.proof.block_number"); err != nil || block == nil || float64(head) < block.(float64)+12 {
		t.Errorf("EOS record COMPLETED at head %d (%v) with its anchor in block %v: fewer than 12 confirmations", head, err, block)
	}
}
