// Package settle is farebox's settlement engine: a write-ahead journal of
// every authorization that may move money, per-payer in-flight accounting
// (holds), settlement with background confirmation, and Resume after a
// crash.
//
// # One purchase
//
// Engine.Begin(ctx, Purchase{Payment, Requirement, BodyHash, PaymentID})
// creates the journal entry of the authorization (x402.Key) atomically in
// state Reserved, then holds the price against the payer's balance at the
// latest block. Its outcomes, and what the gateway answers:
//
//	new authorization, balance covers it    -> *Purchase (run the model)
//	same authorization in Reserved/Settling -> ErrInProgress           409 payment_in_progress
//	same authorization + body, Broadcast or
//	  Confirmed                             -> *Purchase with Replay() (serve again, Settle returns the stored receipt)
//	same authorization, other body          -> ErrNonceUsed            402 invalid_exact_evm_nonce_already_used
//	same authorization, Failed              -> ErrNonceUsed            402 invalid_exact_evm_nonce_already_used
//	payment id of another authorization     -> ErrIdempotencyConflict  409 idempotency_conflict
//	payment id not 16-128 of [A-Za-z0-9_-]  -> ErrInvalidPaymentID     402 invalid_payload
//	payer in debt                           -> ErrPayerInDebt          402 insufficient_funds
//	balance - holds < price                 -> ErrInsufficientFunds    402 insufficient_funds
//	journal full (memory journal only)      -> ErrJournalFull          503
//	journal or chain unreachable            -> other error             503 (never serve unpaid)
//
// Purchase.Settle journals Settling with the transaction hash before the
// transaction is sent (the Broadcaster calls back after signing), then
// Broadcast with the receipt. With confirm "broadcast" it returns there and
// a background follower waits for the block: mined ok -> Confirmed, hold
// released; failed -> Failed, payer in debt. With confirm "mined" it waits
// itself. Purchase.Release (nothing served) deletes the entry and releases
// the hold, so the client may retry with the same authorization. With a
// confirmation depth (evm.Settler.Confirmations) "mined" means that many
// blocks deep, and the token's authorizationState is read that deep: a
// reorganisation above it cannot confirm or fail a purchase.
//
// # Paid answers
//
// A paid purchase's answer is kept (Purchase.Keep, in the AnswerStore:
// MemoryAnswers, or store/redis's, shared; both bounded in total and
// per payer, a payer's own oldest answers going first) until its authorization
// expires, and a replay is answered with it (Purchase.Answer): one payment
// buys one model run, whatever the number of retries. Engine.BeginWait
// makes a duplicate wait for the first request instead of ErrInProgress
// (within a process as long as the first runs, across replicas for
// Config.AnswerWait); Answer waits likewise while the first request is
// still making the answer. A replay whose answer is not kept (a restart,
// eviction, a stream cut short) runs the model again at most
// Config.MaxReruns times, then gets ErrNoAnswer.
//
// The payment-identifier extension (x402 specs/extensions/payment_identifier.md)
// names a purchase: ids are scoped to the payer; the same id with the same
// authorization follows the rules above (same payload, same result); the
// same id with another authorization is a 409.
//
// # Debt: "refused until resolved"
//
// A transfer that was answered with a receipt (Broadcast) and then fails
// for good puts its payer in debt: a DebtItem in the journal, durable like
// the entries, logged with slog at error level and reported as EventFailed
// (Engine.Count, Config.OnEvent: turn them into metrics). "For good" means
// the chain will not carry it: its transaction reverted or vanished and
// the authorization is unused but expired, or a resubmission is refused
// (the balance is gone), or MaxResubmits were spent; or the authorization
// was used or canceled elsewhere while this transaction failed (the token's
// authorizationState cannot tell a cancel from a transfer by someone else,
// so the engine assumes the worse and an operator forgives).
// While the payer has a live item, Begin refuses it with ErrPayerInDebt,
// replays included. An item lapses after Config.DebtTTL (default 7 days;
// negative: never) or is cleared by an operator with Engine.Forgive (e.g.
// after the payer paid out of band); Engine.Debt shows what is owed. A
// transfer that fails before anyone was answered (confirm "mined", or
// Settling after a crash) creates no debt: nobody was served on credit,
// unless the model already ran for it (Purchase.Running): then a refusal
// for the payer's own reasons, even before anything was sent, makes the
// entry Failed (the authorization spent) and the payer a debtor, and
// Settle wraps its error in ErrUnpaidRun.
//
// # Crash and Resume
//
// Engine.Resume, once on start, releases Reserved entries (nothing was
// sent) and follows Settling and Broadcast ones on chain: first the
// token's authorizationState (used -> Confirmed at once, naming the
// transaction whose AuthorizationUsed log shows it, which a fee bump may
// have changed); then the recorded transaction's receipt; else the
// authorizationState again: used ->
// Confirmed; unused and valid -> sent again (the client's retry with the
// same body then gets the receipt); unused and expired -> Failed (answered)
// or released (not answered). With replicas sharing a journal, each sets
// Config.Instance: Resume takes over its own entries and those idle for
// Config.StaleAfter, and Engine.Adopt, called periodically, takes over the
// idle entries of replicas that died and do not come back (a live replica
// rewrites the entries it follows every StaleAfter/3, so they never look
// idle; each adopted entry is reported as EventAdopted). A plain Settler
// (a remote facilitator) cannot be asked about the chain: with
// Config.Reader (the chain its transfers land on) a settlement it left
// pending is Broadcast, answered with a pending receipt naming its
// transaction, and followed there (followRemote: confirmed, or failed or
// released once that transaction did not carry the transfer or the
// authorization expired unused), on Resume too; without one, its entries
// with an unknown outcome stay in Settling (EventUnresolved) for an
// operator.
//
// # Replay protection
//
// The engine is the only entry point: the gateway calls Begin, which
// records the payment, body hash and requirement that a replay and a
// Resume need together with the authorization's key (x402.Key). The
// journal refuses a second use of an authorization and never forgets a
// settled one.
//
// Journals: MemoryJournal (bounded, not durable), store/bolt (a file in the
// data directory: Reserved entries in memory only, the write-ahead Settling
// entry fsynced before the transfer is sent, the later steps through
// SoonJournal within ~250 ms, off the answer's path), store/redis (shared
// by replicas). Holds: MemoryHolds, store/redis's. With the in-process
// holds a payer's balance read counts for its calls of the next
// Config.BalanceMaxAge (1 s), kept exact by the holds (see balanceCache).
// A refusal is counted again on a balance read with the payer's exact
// authorizations in flight (ShownBalances): those it shows used are mined
// and left out, so a transfer the follower has not confirmed yet counts
// once (see Engine.recount). The recount reads the balance again even
// when no such hold is left: the follower may have released them all
// since the refused hold.
//
// Only one durable write precedes a broadcast: the write-ahead entry,
// journaled while the chain settler simulates the batch (an entry whose
// transfer then leaves the transaction is told so with the zero hash and
// goes back to Reserved).
//
// # Suppliers
//
// A pooled model's supplier is known once the model answered, and the
// transfer may be mined before, while or after that. Purchase.Served names
// it in the entry whichever came first: in the entry's first move, in the
// entry in flight (a compare-and-swap under the flight's lock, so the
// confirmation carries it), or in the finished entry, reported as
// EventAttributed so the books move the amount they booked without a
// supplier.
//
// # Gas
//
// A Broadcaster that is also a FeeAwaiter (*evm.Settler) tells, with each
// mined transaction it awaits, this transfer's share of its fee; the engine
// adds up the shares of every transaction the purchase went through
// (reverted ones too) and reports them as Event.Gas on the event that ends
// it (EventConfirmed, EventFailed or EventReleased), for the books.
package settle
