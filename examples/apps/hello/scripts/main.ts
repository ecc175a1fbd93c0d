// Reads the owner's wallet balances, keeps them in appKV under lastBalance and returns them.
// A fresh account has no wallet yet: the run still succeeds and stores why there is no balance.
type Balance = { walletId: string | null; address: string | null; chain: string | null; balances: unknown[]; note: string };

let balance: Balance;
try {
  const answer = svc.wallet.balances();
  const p = answer.portfolio;
  balance = { walletId: p.walletId, address: p.address, chain: p.chain, balances: p.balances, note: "read from the chain" };
} catch (e) {
  balance = { walletId: null, address: null, chain: null, balances: [], note: String(e && e.message ? e.message : e) };
}
appKV.set("lastBalance", balance);
log("balance of", balance.address ? balance.address : "(no wallet)", ":", balance.balances.length, "assets");
return appKV.get("lastBalance");
