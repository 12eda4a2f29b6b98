-- Trigrams for the staff's search of addresses by any part of them (users_email_trgm_idx, next).
-- pg_trgm is a trusted extension: a database owner may create it without being a superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
