-- last_used_at was never written: recording every use would cost a write per request.
ALTER TABLE api_keys DROP COLUMN last_used_at;
