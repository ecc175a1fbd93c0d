// Signs two EIP-4361 messages with viem, unchanged: one to link the address to an account, one to sign
// in. Reads DOMAIN, CHAIN_ID, URI, NONCE_LINK and NONCE_SIGNIN; prints {address, link, signIn}, each
// {message, signature}.
import { createSiweMessage } from 'viem/siwe'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const account = privateKeyToAccount(generatePrivateKey())
const sign = async (nonce, statement) => {
  const message = createSiweMessage({
    address: account.address,
    chainId: Number(process.env.CHAIN_ID),
    domain: process.env.DOMAIN,
    nonce,
    uri: process.env.URI,
    version: '1',
    statement,
    issuedAt: new Date(),
    expirationTime: new Date(Date.now() + 5 * 60 * 1000),
  })
  return { message, signature: await account.signMessage({ message }) }
}
const out = {
  address: account.address,
  link: await sign(process.env.NONCE_LINK, undefined),
  signIn: await sign(process.env.NONCE_SIGNIN, 'Sign in to svc.'),
}
console.log(JSON.stringify(out))
