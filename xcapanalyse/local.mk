# xcapanalyse
