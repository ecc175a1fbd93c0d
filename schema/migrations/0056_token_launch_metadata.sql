-- Token launch metadata (seed 002's svc launch --image --tweet --website): optional http(s) URLs of the
-- token's image, the launch's tweet and the token's website, given with POST /token-launches/deploy and
-- answered in the launch record so that an indexer or a website can show them. They never go on chain.
ALTER TABLE token_launches
    ADD COLUMN image_url   text CHECK (length(image_url) BETWEEN 1 AND 2048),
    ADD COLUMN tweet_url   text CHECK (length(tweet_url) BETWEEN 1 AND 2048),
    ADD COLUMN website_url text CHECK (length(website_url) BETWEEN 1 AND 2048);
