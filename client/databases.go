package client

// Confirmations of the managed database's destructive operations (seed 000: the SDK exports database
// confirmations). A request that destroys data carries the exact string in its "confirmation" field;
// any other value is 400 naming "confirmation".
const (
	// ConfirmDeprovisionDatabase confirms DELETE /v1/databases/account (drops the database and its roles).
	ConfirmDeprovisionDatabase = "deprovision my database"
	// ConfirmTruncateTable confirms the truncate_table action.
	ConfirmTruncateTable = "truncate table"
	// ConfirmDropTable confirms the drop_table action.
	ConfirmDropTable = "drop table"
	// ConfirmResetDatabase confirms the reset_database action (drops every table).
	ConfirmResetDatabase = "reset database"
)
