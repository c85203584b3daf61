"""Filing: broker batches and single acceptances into an open offer, all or nothing."""
