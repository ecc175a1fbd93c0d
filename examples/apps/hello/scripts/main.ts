// Reads the owner's wallet balance, keeps it in appKV under lastBalance and returns it.
type Balance = { address: string; native: string; checkedAt: string };

const wallet = svc.wallet.get();
const native = svc.getBalance({ address: wallet.address });
const balance: Balance = { address: wallet.address, native: String(native), checkedAt: ctx.now };
appKV.set("lastBalance", balance);
log("balance of", wallet.address, "is", balance.native);
return appKV.get("lastBalance");
